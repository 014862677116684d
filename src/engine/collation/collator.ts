/** A collation document as commands carry it (validated by query/collation.ts). */
export interface Collation {
  locale: string;
  strength?: number;
  caseLevel?: boolean;
  [option: string]: unknown;
}

/** Whether a collation changes string comparison (absent and "simple" do not). */
export function isSimpleCollation(collation?: Collation): boolean {
  return !collation || collation.locale === 'simple';
}

/** ICU collation keyword values that BCP 47's `-u-co-` spells differently. */
const BCP47_COLLATION: Readonly<Record<string, string>> = {
  phonebook: 'phonebk',
  traditional: 'trad',
  dictionary: 'dict',
  gb2312han: 'gb2312',
};

const intlTags = new Map<string, string>();

/**
 * The BCP 47 tag for a (valid) mongod locale ID: `_` becomes `-`, POSIX
 * becomes the `va` extension, `@collation=x` becomes `-u-co-x`. A variant the
 * runtime's ICU data lacks falls back to the language's default order.
 */
export function intlLocaleOf(locale: string): string {
  let tag = intlTags.get(locale);
  if (tag) return tag;
  const [base = '', keyword] = locale.split('@collation=');
  const baseTag = base === 'en_US_POSIX' ? 'en-US-u-va-posix' : base.replace(/_/g, '-');
  tag = baseTag;
  if (keyword !== undefined) {
    const withVariant = `${baseTag}${baseTag.includes('-u-') ? '' : '-u'}-co-${BCP47_COLLATION[keyword] ?? keyword}`;
    try {
      if (new Intl.Collator(withVariant).resolvedOptions().collation !== 'default') tag = withVariant;
    } catch {
      // The runtime refuses the tag: the base locale's order is the closest it has.
    }
  }
  intlTags.set(locale, tag);
  return tag;
}

/** The ICU collator of a collation, and the cache key of everything derived from it. */
export interface SharedCollator {
  id: string;
  collator: Intl.Collator;
}

const collators = new Map<string, SharedCollator>();
/** Per collation object: a sort or filter compares many strings under one collation, so the lookup is done once. */
const collatorsByObject = new WeakMap<Collation, SharedCollator>();

export function collatorFor(collation: Collation): SharedCollator {
  let c = collatorsByObject.get(collation);
  if (!c) collatorsByObject.set(collation, (c = sharedCollatorFor(collation)));
  return c;
}

function sharedCollatorFor(collation: Collation): SharedCollator {
  const strength = collation.strength ?? 3;
  const { caseFirst, alternate } = collation;
  const id = `${collation.locale}|${strength}|${collation.caseLevel ? 1 : 0}|${String(collation.numericOrdering ?? '')}|${String(caseFirst ?? '')}|${String(alternate ?? '')}`;
  let c = collators.get(id);
  if (!c) {
    const sensitivity = strength === 1 ? (collation.caseLevel ? 'case' : 'base') : strength === 2 ? 'accent' : 'variant';
    const collator = new Intl.Collator(intlLocaleOf(collation.locale), {
      sensitivity,
      numeric: collation.numericOrdering === true,
      // ICU's caseFirst and alternate=shifted, as far as Intl exposes them.
      caseFirst: caseFirst === 'upper' || caseFirst === 'lower' ? caseFirst : undefined,
      ignorePunctuation: alternate === 'shifted',
      usage: 'sort',
    });
    collators.set(id, (c = { id, collator }));
  }
  return c;
}
