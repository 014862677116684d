/** Text made safe to place in HTML (element content or a quoted attribute). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Where the front door (`/`) keeps the signed-in session for the tab: sessionStorage (gone with
 * the tab, never shared with other tabs' or later visits), `{ accessToken, email }`.
 */
export const SIGNED_IN_STORAGE_KEY = 'admin-gateway.signed-in';

/**
 * Browser script (ES5, for the pages' scripts) defining `signedIn()`: what the front door stored
 * for this tab (`{ accessToken, email }`), or null; and `signedInToken()`: its access token, or null.
 */
export const SIGNED_IN_TOKEN_SCRIPT = `function signedIn() {
  try {
    var stored = JSON.parse(window.sessionStorage.getItem(${JSON.stringify(SIGNED_IN_STORAGE_KEY)}) || 'null');
    return stored && typeof stored.accessToken === 'string' ? stored : null;
  } catch (e) {
    return null;
  }
}
function signedInToken() {
  var stored = signedIn();
  return stored ? stored.accessToken : null;
}
`;

/** The service's icon (`/favicon.svg`, also answered for `/favicon.ico`): browsers ask every page for one. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><path d="M9 23 16 8l7 15M11.5 18h9" fill="none" stroke="#f9fafb" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>
`;
