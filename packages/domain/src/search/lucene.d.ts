/** The parts of the `lucene` parser's output this module reads (the package ships no types). */
declare module 'lucene' {
  export interface LuceneTerm {
    field: string;
    term?: string;
    quoted?: boolean;
    prefix?: '+' | '-' | '!' | null;
    similarity?: number | null;
    proximity?: number | null;
    term_min?: string;
    term_max?: string;
    inclusive?: 'both' | 'none' | 'left' | 'right';
  }
  export interface LuceneNode {
    left?: LuceneNode | LuceneTerm;
    right?: LuceneNode | LuceneTerm;
    operator?: string;
    start?: string;
    parenthesized?: boolean;
    field?: string;
  }
  export function parse(query: string): LuceneNode;
  const lucene: { parse: typeof parse };
  export default lucene;
}
