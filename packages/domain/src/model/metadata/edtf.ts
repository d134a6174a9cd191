/** The EDTF level-0 subset InvenioRDM accepts for dates: YYYY, YYYY-MM, YYYY-MM-DD and intervals A/B. */
const DAY = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

function isDate(text: string): boolean {
  const m = DAY.exec(text);
  if (!m) return false;
  const [, y, mo, d] = m;
  if (mo === undefined) return true;
  const month = Number(mo);
  if (month < 1 || month > 12) return false;
  if (d === undefined) return true;
  const day = Number(d);
  const last = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day >= 1 && day <= last;
}

export function isEdtf(text: string): boolean {
  const parts = text.split('/');
  if (parts.length === 1) return isDate(text);
  if (parts.length !== 2) return false;
  const [a = '', b = ''] = parts;
  return isDate(a) && isDate(b) && a <= b.padEnd(a.length, '9');
}
