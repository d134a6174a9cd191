import { describe, expect, it } from 'vitest';
import { createLinks } from './links.ts';

const BASE = 'https://krs.example.org';
const links = createLinks(BASE);
const sorted = (o: object) => Object.keys(o).sort();

const RESOURCE_DRAFT = ['latest', 'versions', 'self_html', 'publish', 'latest_html', 'self', 'files', 'access_links'];
const PACKAGE_DRAFT = [
  'self', 'self_html', 'self_iiif_manifest', 'self_iiif_sequence', 'files', 'files_import', 'record', 'record_html', 'publish', 'review',
  'versions', 'access_links', 'reserve_doi', 'context_html', 'context_resources', 'context_associate', 'context_dissociate', 'resources', 'resources_import',
];
const PACKAGE_PUBLISHED = [
  'self', 'self_html', 'self_iiif_manifest', 'self_iiif_sequence', 'files', 'latest', 'latest_html', 'draft', 'versions', 'access_links',
  'reserve_doi', 'context_html', 'context_resources', 'context_associate', 'context_dissociate', 'resources', 'requests',
];

describe('record links', () => {
  it('gives a draft resource the spec names plus reserve_doi (the GEO loader follows it), self and files on the draft paths', () => {
    const l = links.record('resource', 'abcde-fghij', 'parnt-00001', 'draft');
    expect(sorted(l)).toEqual([...RESOURCE_DRAFT, 'reserve_doi'].sort());
    expect(l['reserve_doi']).toBe(`${BASE}/api/records/abcde-fghij/draft/pids/doi`);
    expect(l).toMatchObject({
      self: `${BASE}/api/records/abcde-fghij/draft`,
      files: `${BASE}/api/records/abcde-fghij/draft/files`,
      publish: `${BASE}/api/records/abcde-fghij/draft/actions/publish`,
      latest: `${BASE}/api/records/abcde-fghij/versions/latest`,
      versions: `${BASE}/api/records/abcde-fghij/versions`,
      access_links: `${BASE}/api/records/abcde-fghij/access/links`,
      latest_html: `${BASE}/records/abcde-fghij/latest`,
    });
  });

  it('gives a published resource the same names without publish, on the non-draft paths', () => {
    const l = links.record('resource', 'abcde-fghij', 'parnt-00001', 'published');
    expect(sorted(l)).toEqual(RESOURCE_DRAFT.filter((n) => n !== 'publish').sort());
    expect(l['self']).toBe(`${BASE}/api/records/abcde-fghij`);
    expect(l['files']).toBe(`${BASE}/api/records/abcde-fghij/files`);
    expect(l['self_html']).toBe(`${BASE}/records/abcde-fghij`);
  });

  it('gives a draft package exactly the spec names and the API-DECISIONS targets', () => {
    const l = links.record('package', 'pkgaa-00001', 'parnt-00002', 'draft');
    expect(sorted(l)).toEqual([...PACKAGE_DRAFT].sort());
    expect(l).toMatchObject({
      self: `${BASE}/api/packages/pkgaa-00001/draft`,
      record: `${BASE}/api/packages/pkgaa-00001`,
      resources: `${BASE}/api/packages/pkgaa-00001/draft/resources`,
      resources_import: `${BASE}/api/packages/pkgaa-00001/draft/actions/resources-import`,
      files_import: `${BASE}/api/packages/pkgaa-00001/draft/actions/files-import`,
      context_resources: `${BASE}/api/packages/context/parnt-00002/resources`,
      context_associate: `${BASE}/api/packages/pkgaa-00001/context/actions/associate`,
      context_dissociate: `${BASE}/api/packages/pkgaa-00001/context/actions/dissociate`,
    });
  });

  it('gives a published package exactly the spec names', () => {
    const l = links.record('package', 'pkgaa-00001', 'parnt-00002', 'published');
    expect(sorted(l)).toEqual([...PACKAGE_PUBLISHED].sort());
    expect(l).toMatchObject({
      self: `${BASE}/api/packages/pkgaa-00001`,
      self_html: `${BASE}/packages/pkgaa-00001`,
      draft: `${BASE}/api/packages/pkgaa-00001/draft`,
      resources: `${BASE}/api/packages/pkgaa-00001/resources`,
      context_resources: `${BASE}/api/packages/context/parnt-00002/resources`,
    });
  });

  it('makes every record link absolute on the base URL', () => {
    for (const kind of ['resource', 'package'] as const) {
      for (const state of ['draft', 'published'] as const) {
        for (const url of Object.values(links.record(kind, 'abcde-fghij', 'parnt-00001', state))) expect(url.startsWith(`${BASE}/`)).toBe(true);
      }
    }
  });
});

describe('file and access links', () => {
  it('gives draft file entries content, self and commit, published ones content and self, with keys encoded', () => {
    expect(links.file('resource', 'abcde-fghij', 'draft', 'my data/ü?.csv')).toEqual({
      self: `${BASE}/api/records/abcde-fghij/draft/files/my%20data%2F%C3%BC%3F.csv`,
      content: `${BASE}/api/records/abcde-fghij/draft/files/my%20data%2F%C3%BC%3F.csv/content`,
      commit: `${BASE}/api/records/abcde-fghij/draft/files/my%20data%2F%C3%BC%3F.csv/commit`,
    });
    expect(links.file('package', 'pkgaa-00001', 'published', 'a.png')).toEqual({
      self: `${BASE}/api/packages/pkgaa-00001/files/a.png`,
      content: `${BASE}/api/packages/pkgaa-00001/files/a.png/content`,
    });
  });

  it('gives file lists and access links their self', () => {
    expect(links.files('resource', 'abcde-fghij', 'draft')).toEqual({ self: `${BASE}/api/records/abcde-fghij/draft/files` });
    expect(links.files('package', 'pkgaa-00001', 'published')).toEqual({ self: `${BASE}/api/packages/pkgaa-00001/files` });
    expect(links.accessLink('resource', 'abcde-fghij', '0b8f5e3c-1111-4222-8333-944445555666')).toEqual({
      self: `${BASE}/api/records/abcde-fghij/access/links/0b8f5e3c-1111-4222-8333-944445555666`,
    });
  });
});

describe('paging links', () => {
  it('sorts query arguments by name, replaces page, and encodes values', () => {
    expect(links.page('/api/records', [['sort', 'newest'], ['q', 'flood maps'], ['page', '9'], ['size', '10']], 2)).toBe(
      `${BASE}/api/records?page=2&q=flood%20maps&size=10&sort=newest`,
    );
    expect(links.page('/api/search', [['resource_type', 'software'], ['resource_type', 'dataset']], 1)).toBe(
      `${BASE}/api/search?page=1&resource_type=dataset&resource_type=software`,
    );
  });

  it('adds prev and next only where such a page exists', () => {
    const q: [string, string][] = [['size', '10']];
    expect(links.pageLinks('/api/records', q, { page: 1, size: 10, total: 5 })).toEqual({ self: `${BASE}/api/records?page=1&size=10` });
    expect(links.pageLinks('/api/records', q, { page: 2, size: 10, total: 30 })).toEqual({
      self: `${BASE}/api/records?page=2&size=10`,
      prev: `${BASE}/api/records?page=1&size=10`,
      next: `${BASE}/api/records?page=3&size=10`,
    });
    expect(links.pageLinks('/api/records', q, { page: 3, size: 10, total: 30 })).not.toHaveProperty('next');
    // Page 11 of 1000 would pass the 10 000-hit result window, so it is not offered.
    expect(links.pageLinks('/api/records', q, { page: 10, size: 1000, total: 50000 })).not.toHaveProperty('next');
    expect(links.pageLinks('/api/records', q, { page: 9, size: 1000, total: 50000 }).next).toContain('page=10');
  });
});
