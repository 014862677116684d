import { Aggregator } from 'mingo/aggregator';
import { Context } from 'mingo/core';
import * as accumulatorOps from 'mingo/operators/accumulator';
import * as expressionOps from 'mingo/operators/expression';
import { $densify, $fill, $setWindowFields } from 'mingo/operators/pipeline';
import * as windowOps from 'mingo/operators/window';
import { isMongoCommandError, mongoError } from '../../errors.js';
import { fromMingo } from '../expression.js';
import { isPlainObject, toPlainNumbers } from '../values.js';
import type { Document } from '../types.js';

/**
 * Stages answered by mingo's own implementation ($densify, $fill,
 * $setWindowFields): they run on plain-number copies of the documents (mingo
 * does not know Long/Decimal128), and integral results come back as int32 or
 * double (fromMingo). Their argument checks are mingo's, reported as BadValue.
 */

const CONTEXT = Context.init({
  pipeline: { $densify, $fill, $setWindowFields } as never,
  expression: expressionOps as never,
  accumulator: accumulatorOps as never,
  window: windowOps as never,
});

const STAGE_SHAPE: Readonly<Record<string, string>> = {
  $densify: "the $densify stage specification must be an object with 'field' and 'range'",
  $fill: "the $fill stage specification must be an object with 'output'",
  $setWindowFields: "the $setWindowFields stage specification must be an object with 'output'",
};

export function runMingoStage(name: string, docs: Document[], spec: unknown): Document[] {
  if (!isPlainObject(spec)) throw mongoError('FailedToParse', STAGE_SHAPE[name] ?? `${name} specification must be an object`);
  try {
    const aggregator = new Aggregator([{ [name]: toPlainNumbers(spec) }], { context: CONTEXT } as never);
    return (aggregator.run(toPlainNumbers(docs) as Document[]) as Document[]).map((d) => fromMingo(d) as Document);
  } catch (err) {
    if (isMongoCommandError(err)) throw err;
    throw mongoError('BadValue', `${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
