/** The part of citation-js (which ships no types) that krs uses. */
declare module '@citation-js/core' {
  export class Cite {
    constructor(data: object[]);
    format(format: 'bibliography', options: { format: 'html' | 'text'; template: string; lang: string }): string;
    format(format: 'bibtex' | 'biblatex', options?: { format: 'text' }): string;
  }
}
declare module '@citation-js/plugin-csl';
declare module '@citation-js/plugin-bibtex';
