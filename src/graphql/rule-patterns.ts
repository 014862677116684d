/**
 * The value rules the service checks in code (validator.js behind
 * class-validator's IsEmail/IsUrl, Node's isIP, the WHATWG URL parser, our own
 * rules), written as JSON Schema patterns so that a derived schema takes and
 * refuses what the service does. Each is built from the same grammar the check
 * follows; where a pattern cannot follow it exactly, `note` says what differs
 * and the derived schema carries it in its description.
 */

/** One rule as JSON Schema keywords, and what the pattern cannot say exactly. */
export interface RulePattern {
  pattern: string;
  note?: string;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** Dotted IPv4, no leading zeros (Node's and validator.js's grammar). */
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H16 = '[0-9A-Fa-f]{1,4}';
/** IPv6 with `::` and an embedded IPv4 tail, as Node's net.isIP and validator.js's isIP read it (no zone id). */
const IPV6 = `(?:${[
  `(?:${H16}:){7}(?:${H16}|:)`,
  `(?:${H16}:){6}(?:${IPV4}|:${H16}|:)`,
  `(?:${H16}:){5}(?::${IPV4}|(?::${H16}){1,2}|:)`,
  `(?:${H16}:){4}(?:(?::${H16}){0,1}:${IPV4}|(?::${H16}){1,3}|:)`,
  `(?:${H16}:){3}(?:(?::${H16}){0,2}:${IPV4}|(?::${H16}){1,4}|:)`,
  `(?:${H16}:){2}(?:(?::${H16}){0,3}:${IPV4}|(?::${H16}){1,5}|:)`,
  `(?:${H16}:)(?:(?::${H16}){0,4}:${IPV4}|(?::${H16}){1,6}|:)`,
  `:(?:(?::${H16}){0,5}:${IPV4}|(?::${H16}){1,7}|:)`,
].join('|')})`;

/** 1 to 65535; `zeros` lets leading zeros through (validator.js reads the port with parseInt). */
const port = (zeros: boolean) => `${zeros ? '0*' : ''}(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])`;

// validator.js's isFQDN with a required top-level domain: labels of letters (any script), digits and inner
// hyphens, up to 63 characters, no full-width forms, no underscore; the last one 2+ letters or an xn-- label.
const LABEL_CHAR = 'A-Za-z0-9\\u00A1-\\uFF00\\uFF5F-\\uFFFF';
const LABEL = `[${LABEL_CHAR}](?:[${LABEL_CHAR}-]{0,61}[${LABEL_CHAR}])?`;
const TLD = '(?:[A-Za-z\\u00A1-\\u00A8\\u00AA-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFF00\\uFF5F-\\uFFEF]{2,63}|[Xx][Nn][A-Za-z0-9-]{0,60}[A-Za-z0-9])';
const DOMAIN = `(?:${LABEL}\\.)+${TLD}`;
const DOMAIN_NOTE = 'labels with characters beyond U+FFFF are refused here and taken by the service';

/** validator.js's isEmail (class-validator's IsEmail, default options). */
export function emailPattern(): RulePattern {
  const atom = "[A-Za-z\\d!#$%&'*+\\-/=?^_`{|}~\\u00A1-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF]+";
  const range = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF';
  const quoted = `"(?:[\\s\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f\\x21\\x23-\\x5b\\x5d-\\x7e${range}]|\\\\[\\x01-\\x09\\x0b\\x0c\\x0d-\\x7f${range}])*"`;
  return {
    // At most 254 characters, the local part at most 64: dot-separated atoms (no empty one) or a quoted string
    // (a lone `"` too: validator.js strips both ends of a local part that starts and ends with one).
    pattern: `^(?=[\\s\\S]{1,254}$)(?=[\\s\\S]{1,64}@[^@]*$)(?:${atom}(?:\\.${atom})*|${quoted}|")@${DOMAIN}$`,
    note: `Checked by the service as validator.js's isEmail: the 64 and 254 limits count UTF-8 bytes there, characters here; ${DOMAIN_NOTE}.`,
  };
}

/** validator.js's isURL with a required protocol from `protocols` (any case) and a required top-level domain. */
export function urlPattern(protocols: readonly string[]): RulePattern {
  // validator.js lowercases the scheme before comparing it.
  const scheme = protocols.map((name) => name.replace(/[^a-z0-9]/gi, '\\$&').replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)).join('|');
  const free = '[^\\s<>/?#@:]';
  const userinfo = `(?:${free}+(?::${free}*)?|:${free}+)@`;
  const host = `(?:\\[${IPV6}(?:%[0-9A-Za-z.]+)?\\](?::${port(true)})?|(?:${IPV4}|${DOMAIN})(?::(?:${port(true)})?)?)`;
  return {
    // No whitespace, < or > anywhere; `scheme://[user[:password]@]host[:port]` or `scheme:host[:port]`, then a path, query or fragment.
    pattern: `^(?=[^\\s<>]*$)(?:${scheme}):(?://(?:${userinfo})?|(?![\\d/]))${host}(?:[/?#][\\s\\S]*)?$`,
    note: `Checked by the service as validator.js's isURL: ${DOMAIN_NOTE}, and so is \`scheme:user@host\` (no //) with characters other than letters, digits, - _ . % : before the @.`,
  };
}

/** An IPv4 or IPv6 address, or a CIDR block (api-key-limits.ts isIpOrCidr): no IPv4-mapped IPv6, no zone id. */
export function ipOrCidrPattern(): RulePattern {
  const prefix4 = '(?:0{0,2}\\d|0?[12]\\d|0?3[0-2])';
  const prefix6 = '(?:0{0,2}\\d|0?[1-9]\\d|1[01]\\d|12[0-8])';
  return { pattern: `^(?:${IPV4}(?:/${prefix4})?|(?!::[Ff]{4}:\\d)${IPV6}(?:/${prefix6})?)$` };
}

/**
 * An origin as the URL parser writes it (api-key-limits.ts isOrigin): http or
 * https, a lowercase ASCII host that does not end in a number (else it is an
 * IPv4 address, written canonically), a port without leading zeros and never
 * the scheme's default, nothing after it.
 */
export function originPattern(): RulePattern {
  const canonicalPort = `(?:0|${port(false)})`;
  const name = "[a-z0-9!\"$&'()*+,;=_`{}~.-]";
  const domain = `(?!(?:${name}*\\.)?(?:\\d+|0x[0-9a-f]*)\\.?(?::\\d+)?$)${name}+`;
  const host = `(?:${IPV4}|\\[[0-9a-f:]{2,39}\\]|${domain})`;
  return {
    pattern: `^(?:http://${host}(?::(?!80$)${canonicalPort})?|https://${host}(?::(?!443$)${canonicalPort})?)$`,
    note:
      'Checked by the service with the URL parser: the value must be exactly the origin it parses to; an IPv6 host must be ' +
      'in its shortest lowercase form there, any bracketed lowercase hex here, and an xn-- label must be valid punycode there.',
  };
}

/** A calendar day YYYY-MM-DD (format `date` checks that the month and day exist), any year 0000 to 9999. */
export function calendarDatePattern(): RulePattern {
  return { pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
}

/** credential-rules.ts isAcceptablePassword: an uppercase letter, a lowercase letter, a digit or non-word character, anywhere (line breaks included). */
export function passwordPattern(): RulePattern {
  return { pattern: '^(?=[\\s\\S]*[A-Z])(?=[\\s\\S]*[a-z])(?=[\\s\\S]*[\\d\\W])[\\s\\S]*$' };
}
