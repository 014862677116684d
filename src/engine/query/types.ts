/** The value model as query/ and the layers above it name it (defined below query/, in model/). */
export type { Document } from '../model/index.js';
export type { Collation } from '../collation/index.js';
