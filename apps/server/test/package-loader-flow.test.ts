/**
 * A knowledge package loaded as GEO's package loader loads one: it names only the two create
 * addresses and follows the links of each answer for everything else (files, content, commit,
 * reserve_doi, context_associate, resources, self, publish). It starts the uploads of every
 * record, those without files too, sends file content without a content type, and reserves DOIs
 * on drafts before associating them.
 */
import { describe, expect, it } from 'vitest';
import { BASE, makeApp } from './make-app.ts';

const creators = [
  { person_or_org: { type: 'personal', given_name: 'Ana', family_name: 'Lima', name: 'Lima, Ana', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] } },
];
const studyArea = { type: 'Polygon', coordinates: [[[-63.2, -10.7], [-63.0, -10.7], [-63.0, -10.5], [-63.2, -10.5], [-63.2, -10.7]]] };
const common = {
  creators,
  publication_date: '2023-02-21',
  languages: [{ id: 'eng', title: { en: 'English' } }],
  rights: [{ id: 'cc-by-4.0', title: { en: 'Creative Commons Attribution 4.0 International' } }],
  subjects: [{ subject: 'data cubes' }, { subject: 'deforestation' }],
  locations: { features: [{ place: 'Study area', geometry: studyArea }] },
};

/** What a package repository's definition holds: metadata as the loader sends it, files, whether to reserve a DOI. */
type Element = { metadata: unknown; files: Record<string, string>; include_doi: boolean };
const repository: { knowledge_package: Element; resources: Element[] } = {
  knowledge_package: {
    metadata: { access: { record: 'public', files: 'public' }, files: { enabled: true, order: [] }, metadata: { ...common, title: 'Mapping deforestation with data cubes', publisher: 'GEO Knowledge Hub', resource_type: { id: 'knowledge' } } },
    files: { 'overview.pdf': '%PDF-1.4 overview' },
    include_doi: true,
  },
  resources: [
    { metadata: { files: { enabled: true, order: [] }, metadata: { ...common, title: 'Training samples', resource_type: { id: 'dataset' } } }, files: { 'samples.csv': 'label,x,y\nforest,1,2\n', 'samples.rds': 'RDS' }, include_doi: true },
    { metadata: { files: { enabled: false, order: [] }, metadata: { ...common, title: 'User documentation', resource_type: { id: 'publication-article' } } }, files: {}, include_doi: false },
  ],
};

describe("GEO's package loader", () => {
  it('loads a package and its resources by following links, and publishes them together', async () => {
    const { call, alice } = await makeApp({ doiPrefix: '10.5072' });
    const follow = async (method: string, link: unknown, init: { json?: unknown; body?: string; headers?: Record<string, string> } = {}) => {
      expect(typeof link === 'string' && link.startsWith(BASE), `link ${String(link)}`).toBe(true);
      const res = await call(method, (link as string).slice(BASE.length), { token: alice, ...init });
      expect(res.status, `${method} ${String(link)}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
      return res;
    };

    const load = async (element: Element, create: string) => {
      const created = await follow('POST', `${BASE}${create}`, { json: element.metadata });
      expect(created.status).toBe(201);
      const started = await follow('POST', created.json.links.files, { json: Object.keys(element.files).map((key) => ({ key })) });
      expect(started.json.entries.map((e: { key: string }) => e.key).sort()).toEqual(Object.keys(element.files).sort());
      for (const entry of started.json.entries as { key: string; links: { content: string; commit: string } }[]) {
        const content = element.files[entry.key] ?? '';
        await follow('PUT', entry.links.content, { body: content, headers: { 'content-length': String(content.length) } });
        await follow('POST', entry.links.commit);
      }
      let answer = (await follow('GET', created.json.links.self)).json;
      if (element.include_doi) answer = (await follow('POST', answer.links.reserve_doi)).json;
      return answer;
    };

    const pkg = await load(repository.knowledge_package, '/api/packages');
    const resources = [];
    for (const resource of repository.resources) resources.push(await load(resource, '/api/records'));
    const records = resources.map((r) => ({ id: r.id as string }));
    await follow('POST', pkg.links.context_associate, { json: { records } });
    expect((await follow('POST', pkg.links.resources, { json: { resources: records } })).json).toEqual({ errors: [] });
    const reloaded = (await follow('GET', pkg.links.self)).json;
    expect(reloaded.relationship.resources).toEqual(records);

    const published = await follow('POST', reloaded.links.publish);
    expect(published.status).toBe(202);
    expect(published.json).toMatchObject({ status: 'published', is_published: true, pids: { doi: { identifier: `10.5072/${pkg.id}` } } });
    const [samples, documentation] = await Promise.all(records.map(async ({ id }) => (await call('GET', `/api/records/${id}`)).json));
    expect(samples).toMatchObject({ is_published: true, pids: { doi: { identifier: `10.5072/${samples.id}` } }, files: { enabled: true } });
    expect(documentation).toMatchObject({ is_published: true, files: { enabled: false }, access: { status: 'metadata-only' } });
    expect(documentation.pids.doi).toBeUndefined();
    const files = (await call('GET', `/api/records/${samples.id}/files`)).json.entries;
    expect(files.map((f: { key: string; size: number; status: string }) => [f.key, f.size, f.status])).toEqual([
      ['samples.csv', 21, 'completed'],
      ['samples.rds', 3, 'completed'],
    ]);
    const listed = (await call('GET', `/api/packages/${pkg.id}/resources`)).json.hits;
    expect(listed.total).toBe(2);
  });
});
