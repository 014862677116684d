import { mongoError } from '../../errors.js';
import { toRegExp } from '../regex.js';
import { bsonTypeName } from '../type-names.js';
import type { Document } from '../types.js';
import { isPlainObject, ownField } from '../values.js';
import {
  entry,
  isObject,
  kw,
  nonNegativeInteger,
  restriction,
  schemaOperand,
  type CompiledSchema,
  type SchemaContext,
  type SchemaRule,
} from './json-schema-support.js';

/**
 * `$jsonSchema` object keywords, in mongod's order: properties,
 * patternProperties/additionalProperties, required, minProperties,
 * maxProperties (dependencies is separate: it also applies to the document).
 * Below the top level they only judge sub-documents; at the top level they
 * judge the document itself, `_id` included.
 */

const present = (obj: Document, name: string) => ownField(obj, name) !== undefined;

/** Applies an object rule to the document itself, or to sub-document values only. */
function onObjects(top: boolean, check: (obj: Document) => boolean, explain: (obj: Document) => Document[]): SchemaRule {
  if (top) return { test: (v) => check(v as Document), explain: (v) => explain(v as Document) };
  return restriction(isObject, (v) => check(v as Document), (v) => explain(v as Document));
}

function parseRequired(spec: unknown): string[] {
  if (!Array.isArray(spec)) {
    throw mongoError('TypeMismatch', `${kw('required')} must be an array, but found an element of type ${bsonTypeName(spec)}`);
  }
  for (const name of spec) {
    if (typeof name !== 'string') {
      throw mongoError('TypeMismatch', `${kw('required')} must be an array of strings, but found an element of type: ${bsonTypeName(name)}`);
    }
  }
  if (spec.length === 0) throw mongoError('FailedToParse', `${kw('required')} cannot be an empty array`);
  if (new Set(spec).size !== spec.length) throw mongoError('FailedToParse', `${kw('required')} array cannot contain duplicate values`);
  return spec as string[];
}

interface PropertySchema {
  name: string;
  schema: CompiledSchema;
  required: boolean;
}

function propertiesRule(spec: unknown, required: Set<string>, top: boolean, ctx: SchemaContext): SchemaRule {
  const props: PropertySchema[] = Object.entries(schemaOperand(`${kw('properties')} must be an object`, spec)).map(([name, sub]) => ({
    name,
    schema: ctx.compile(schemaOperand(`Nested schema for $jsonSchema property '${name}' must be an object`, sub), false),
    required: required.has(name),
  }));
  return onObjects(
    top,
    (obj) =>
      props.every((p) => {
        const v = ownField(obj, p.name);
        return (v === undefined && !p.required) || p.schema.test(v);
      }),
    (obj) => {
      // A missing property is `required`'s to report.
      const failing = props.flatMap((p) => {
        const v = ownField(obj, p.name);
        if (v === undefined || p.schema.test(v)) return [];
        const details = p.schema.explain(v);
        return details.length ? [{ propertyName: p.name, ...p.schema.annotations, details }] : [];
      });
      return failing.length ? [{ operatorName: 'properties', propertiesNotSatisfied: failing }] : [];
    },
  );
}

interface PatternSchema {
  source: string;
  re: RegExp;
  schema: CompiledSchema;
}

const matchesName = (re: RegExp, name: string) => {
  re.lastIndex = 0;
  return re.test(name);
};

/** patternProperties and additionalProperties: one rule, as mongod's $_internalSchemaAllowedProperties. */
function allowedPropertiesRule(schema: Document, top: boolean, ctx: SchemaContext): SchemaRule {
  const named = new Set(isPlainObject(schema.properties) ? Object.keys(schema.properties) : []);
  const patterns: PatternSchema[] = [];
  if (schema.patternProperties !== undefined) {
    for (const [source, sub] of Object.entries(schemaOperand(`${kw('patternProperties')} must be an object`, schema.patternProperties))) {
      const nested = schemaOperand(`${kw('patternProperties')} has property '${source}' which is not an object`, sub);
      patterns.push({ source, re: toRegExp(source, ''), schema: ctx.compile(nested, false) });
    }
  }
  const spec = schema.additionalProperties;
  if (spec !== undefined && typeof spec !== 'boolean' && !isPlainObject(spec)) {
    throw mongoError('TypeMismatch', `${kw('additionalProperties')} must be an object or a boolean`);
  }
  const otherwise: boolean | CompiledSchema = isPlainObject(spec) ? ctx.compile(spec, false) : spec !== false;
  const additionalNames = (obj: Document) => Object.keys(obj).filter((f) => !named.has(f) && !patterns.some((p) => matchesName(p.re, f)));
  const acceptsOther = (v: unknown) => (typeof otherwise === 'boolean' ? otherwise : otherwise.test(v));
  return onObjects(
    top,
    (obj) =>
      Object.keys(obj).every((f) => {
        let matched = named.has(f);
        for (const p of patterns) {
          if (!matchesName(p.re, f)) continue;
          matched = true;
          if (!p.schema.test(obj[f])) return false;
        }
        return matched || acceptsOther(obj[f]);
      }),
    (obj) => {
      const out: Document[] = [];
      const extra = additionalNames(obj);
      if (otherwise === false && extra.length) {
        out.push(entry('additionalProperties', { additionalProperties: false }, { additionalProperties: extra }));
      } else if (typeof otherwise !== 'boolean') {
        const failing = extra.find((f) => !otherwise.test(obj[f]));
        if (failing !== undefined) {
          out.push({
            operatorName: 'additionalProperties',
            ...otherwise.annotations,
            reason: 'at least one additional property did not match the subschema',
            failingProperty: failing,
            details: otherwise.explain(obj[failing]),
          });
        }
      }
      const patternErrors = patterns.flatMap((p) => {
        const failing = Object.keys(obj).find((f) => matchesName(p.re, f) && !p.schema.test(obj[f]));
        if (failing === undefined) return [];
        return [{ propertyName: failing, ...p.schema.annotations, regexMatched: p.source, details: p.schema.explain(obj[failing]) }];
      });
      if (patternErrors.length) out.push({ operatorName: 'patternProperties', details: patternErrors });
      return out;
    },
  );
}

function requiredRule(spec: string[], top: boolean): SchemaRule {
  // mongod keeps the names in a sorted set, so missing ones are listed sorted.
  const sorted = [...spec].sort();
  return onObjects(
    top,
    (obj) => spec.every((name) => present(obj, name)),
    (obj) => [entry('required', { required: spec }, { missingProperties: sorted.filter((name) => !present(obj, name)) })],
  );
}

function countRule(name: 'minProperties' | 'maxProperties', spec: unknown, top: boolean): SchemaRule {
  const bound = nonNegativeInteger(name, spec);
  const ok = name === 'minProperties' ? (n: number) => n >= bound : (n: number) => n <= bound;
  return onObjects(
    top,
    (obj) => ok(Object.keys(obj).length),
    (obj) => [entry(name, { [name]: spec }, { reason: 'specified number of properties was not satisfied', numberOfProperties: Object.keys(obj).length })],
  );
}

export function objectRules(schema: Document, top: boolean, ctx: SchemaContext): SchemaRule[] {
  const required = schema.required === undefined ? undefined : parseRequired(schema.required);
  const rules: SchemaRule[] = [];
  if (schema.properties !== undefined) rules.push(propertiesRule(schema.properties, new Set(required), top, ctx));
  if (schema.patternProperties !== undefined || schema.additionalProperties !== undefined) rules.push(allowedPropertiesRule(schema, top, ctx));
  if (required) rules.push(requiredRule(required, top));
  if (schema.minProperties !== undefined) rules.push(countRule('minProperties', schema.minProperties, top));
  if (schema.maxProperties !== undefined) rules.push(countRule('maxProperties', schema.maxProperties, top));
  return rules;
}

type Dependency = { name: string; schema: CompiledSchema } | { name: string; properties: string[] };

function parseDependency(name: string, spec: unknown, top: boolean, ctx: SchemaContext): Dependency {
  if (isPlainObject(spec)) return { name, schema: ctx.compile(spec, top) };
  if (!Array.isArray(spec)) {
    throw mongoError('TypeMismatch', `property '${name}' in ${kw('dependencies')} must be either an object or an array`);
  }
  if (spec.length === 0) throw mongoError('FailedToParse', `property '${name}' in ${kw('dependencies')} cannot be an empty array`);
  const seen = new Set<string>();
  for (const p of spec) {
    if (typeof p !== 'string') {
      throw mongoError('TypeMismatch', `array '${name}' in ${kw('dependencies')} can only contain strings, but found element of type: ${bsonTypeName(p)}`);
    }
    if (seen.has(p)) throw mongoError('FailedToParse', `array '${name}' in ${kw('dependencies')} contains duplicate element: ${p}`);
    seen.add(p);
  }
  return { name, properties: spec as string[] };
}

/** dependencies: when a property is present, others must be too, or the object must match a schema. */
export function dependencyRule(spec: unknown, ctx: SchemaContext, top: boolean): SchemaRule {
  const operand = schemaOperand(`${kw('dependencies')} must be an object`, spec);
  // title and description may annotate the dependencies object itself.
  const isAnnotation = (name: string, dep: unknown) => (name === 'title' || name === 'description') && typeof dep === 'string';
  const deps = Object.entries(operand)
    .filter(([name, dep]) => !isAnnotation(name, dep))
    .map(([name, dep]) => parseDependency(name, dep, top, ctx));
  const annotations = Object.fromEntries(['title', 'description'].filter((n) => isAnnotation(n, operand[n])).map((n) => [n, operand[n]]));
  const holds = (obj: Document, dep: Dependency) =>
    !present(obj, dep.name) || ('schema' in dep ? dep.schema.test(obj) : dep.properties.every((p) => present(obj, p)));
  return onObjects(
    top,
    (obj) => deps.every((d) => holds(obj, d)),
    (obj) => [
      {
        operatorName: 'dependencies',
        ...annotations,
        failingDependencies: deps
          .filter((d) => !holds(obj, d))
          .map((d) =>
            'schema' in d
              ? { conditionalProperty: d.name, details: d.schema.explain(obj) }
              : { conditionalProperty: d.name, missingProperties: d.properties.filter((p) => !present(obj, p)) },
          ),
      },
    ],
  );
}
