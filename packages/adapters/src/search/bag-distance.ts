/**
 * The words that may lie within `distance` edits of `word`: those whose bag distance (the larger
 * of the letters each has that the other lacks, counted with repeats) is at most `distance`. An
 * edit changes each count by one at most, so no word within the distance is dropped; the domain's
 * `fuzzyExpansions` then measures the few left. At a million documents `glacer~` looks at 20 000
 * words, most of them parts of record ids sharing only their first letter with it: measured on the
 * main thread they cost it 5-7 ms, this a fraction of one on a reader thread.
 *
 * Counts UTF-16 units, as `editDistance` does. Runs as source text on the reader threads too
 * (sqlite-reader.ts): it calls nothing but the language's own.
 */
export function withinBagDistance(words: readonly string[], word: string, distance: number): string[] {
  // Each unit's count in the word less its count in the candidate at hand, by unit: a typed array
  // (a Map cost 7 ms over 20 000 words).
  const counts = new Int32Array(65_536);
  for (let i = 0; i < word.length; i++) counts[word.charCodeAt(i)] = (counts[word.charCodeAt(i)] as number) + 1;
  const near: string[] = [];
  for (const candidate of words) {
    if (Math.abs(candidate.length - word.length) > distance) continue;
    let extra = 0;
    for (let i = 0; i < candidate.length; i++) {
      const unit = candidate.charCodeAt(i);
      const left = (counts[unit] as number) - 1;
      counts[unit] = left;
      if (left < 0) extra++;
    }
    for (let i = 0; i < candidate.length; i++) counts[candidate.charCodeAt(i)] = (counts[candidate.charCodeAt(i)] as number) + 1;
    // The word's units the candidate lacks: those not matched by one of the candidate's.
    const missing = word.length - (candidate.length - extra);
    if (Math.max(extra, missing) <= distance) near.push(candidate);
  }
  return near;
}
