/** Checks of person and organisation identifiers. */

/** ISO 7064 MOD 11-2, used by ORCID and ISNI: 15 digits and a check digit (0-9 or X). */
function mod11_2(digits: string): boolean {
  const plain = digits.replace(/-/g, '').toUpperCase();
  if (!/^\d{15}[\dX]$/.test(plain)) return false;
  let total = 0;
  for (const ch of plain.slice(0, 15)) total = (total + Number(ch)) * 2;
  const check = (12 - (total % 11)) % 11;
  return plain[15] === (check === 10 ? 'X' : String(check));
}

const stripPrefix = (value: string, prefixes: RegExp) => value.trim().replace(prefixes, '');

export function identifierProblem(scheme: string, identifier: string): string | null {
  switch (scheme.toLowerCase()) {
    case 'orcid':
      return mod11_2(stripPrefix(identifier, /^https?:\/\/orcid\.org\//i)) ? null : 'Invalid ORCID identifier.';
    case 'isni':
      return mod11_2(stripPrefix(identifier, /^https?:\/\/isni\.org\/isni\//i).replace(/\s/g, '')) ? null : 'Invalid ISNI identifier.';
    case 'ror':
      return /^0[a-hj-km-np-tv-z0-9]{6}\d{2}$/.test(stripPrefix(identifier, /^https?:\/\/ror\.org\//i)) ? null : 'Invalid ROR identifier.';
    default:
      return identifier.trim() === '' ? 'Identifier must not be empty.' : null;
  }
}

/** An e-mail address as InvenioRDM (marshmallow's Email) accepts it, in spirit: one local part, one dotted domain. */
export function isEmail(text: string): boolean {
  if (text.length > 254) return false;
  return /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(text);
}
