/**
 * Access-link tokens are never stored: a token is `<link id>.<HMAC-SHA256 of the link id>` under
 * the server's secret, recomputed whenever it is shown and checked with Web Crypto's verify
 * (constant time). A database dump alone grants nothing, and rotating the secret revokes every
 * link at once, as InvenioRDM's signed secret links do.
 */
export interface LinkTokens {
  /** The token that grants the link's rights. */
  tokenFor(linkId: string): Promise<string>;
  /** The link ids the presented tokens were genuinely issued for; anything else is ignored. */
  linkIdsOf(tokens: readonly string[]): Promise<string[]>;
}

/** Tokens looked at per request: more cannot grant more than the best of them. */
const MAX_TOKENS = 8;
/** A link id is a UUID and the MAC 43 base64url characters: longer text is not a token. */
const MAX_TOKEN_LENGTH = 128;

const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer): string {
  let binary = '';
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** An HMAC-SHA256 is 32 bytes: 43 base64url characters, unpadded. */
const MAC = /^[A-Za-z0-9_-]{43}$/;

/** The MAC's bytes, or null for text that is no MAC (which `atob` may refuse with an exception: a length of 4n + 1). */
function macOf(text: string): Uint8Array | null {
  if (!MAC.test(text)) return null;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

export function createLinkTokens(secret: string): LinkTokens {
  if (secret.length < 16) throw new Error('The access-link secret must be at least 16 characters.');
  const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async tokenFor(linkId) {
      return `${linkId}.${base64url(await crypto.subtle.sign('HMAC', await key, encoder.encode(linkId)))}`;
    },
    async linkIdsOf(tokens) {
      const ids: string[] = [];
      for (const token of tokens.slice(0, MAX_TOKENS)) {
        if (token.length > MAX_TOKEN_LENGTH) continue;
        const dot = token.lastIndexOf('.');
        const mac = dot > 0 ? macOf(token.slice(dot + 1)) : null;
        if (!mac) continue;
        const linkId = token.slice(0, dot);
        if (await crypto.subtle.verify('HMAC', await key, mac, encoder.encode(linkId))) ids.push(linkId);
      }
      return ids;
    },
  };
}
