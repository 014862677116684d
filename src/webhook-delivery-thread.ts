import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import mongoose from 'mongoose';
import { connectMongoose } from './database.js';
import { EventLog, EventTail } from './events/index.js';
import { createLogger } from './logger.js';
import { attemptMessage, webhookWorkerFor, type DeliveryThreadData } from './webhook-delivery.js';

/**
 * The webhook delivery thread (webhook-delivery.ts, startDeliveryThread): the
 * instance's worker on a connection of its own, following the event log with a
 * tail of its own. A 'close' message stops it: its sends end, its connection
 * closes, and the thread exits.
 */
const { config, database, options } = workerData as DeliveryThreadData;
const logger = createLogger(config).child({ thread: 'webhook-delivery' });
await connectMongoose(database.uri, database.dbName);
const eventTail = new EventTail();
eventTail.logTo(logger);
// The endpoint-disabled event it may write wakes its own tail; the API thread's tail polls.
const eventLog = new EventLog({ retentionSeconds: config.events.retentionSeconds, onCommit: () => eventTail.wake() });
// Each attempt's outcome goes to the API's thread, whose metrics count it.
const worker = webhookWorkerFor(config, logger, { eventLog, eventTail }, options, (outcome, delaySeconds) => parentPort!.postMessage(attemptMessage(outcome, delaySeconds)));
worker.start();
logger.debug('webhook delivery thread started');

parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  void (async () => {
    await worker.close();
    await eventTail.close();
    await mongoose.disconnect();
    // In a thread, exit ends the thread alone (whatever handle might still hold its loop).
    process.exit(0);
  })().catch((err: unknown) => {
    logger.error({ err }, 'the webhook delivery thread did not close cleanly');
    process.exit(1);
  });
});
