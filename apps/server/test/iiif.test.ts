import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

/** The head of a PNG: what commit reads the dimensions from. */
function png(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}

async function setUp() {
  const env = await makeApp();
  const { app, call, alice } = env;
  const upload = async (kind: 'records' | 'packages', id: string, key: string, content: Uint8Array | string) => {
    expect((await call('POST', `/api/${kind}/${id}/draft/files`, { token: alice, json: [{ key }] })).status).toBe(201);
    const put = await app.request(`/api/${kind}/${id}/draft/files/${encodeURIComponent(key)}/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/octet-stream' },
      body: content,
    });
    expect(put.status).toBe(200);
    expect((await call('POST', `/api/${kind}/${id}/draft/files/${encodeURIComponent(key)}/commit`, { token: alice })).status).toBe(200);
  };
  /** A package draft with two images (the second shown first) and a text file. */
  const packageWithImages = async (access?: unknown) => {
    const draft = await call('POST', '/api/packages', {
      token: alice,
      json: { metadata: { ...metadata, title: 'Coastline photographs', description: '<p>Two <b>aerial</b> views.</p>' }, files: { enabled: true }, ...(access ? { access } : {}) },
    });
    const id = draft.json.id as string;
    await upload('packages', id, 'north shore.png', png(640, 480));
    await upload('packages', id, 'south.png', png(300, 1200));
    await upload('packages', id, 'notes.txt', 'not an image');
    const withOrder = await call('PUT', `/api/packages/${id}/draft`, {
      token: alice,
      json: { metadata: draft.json.metadata, files: { enabled: true, order: ['south.png', 'north shore.png', 'notes.txt'] }, ...(access ? { access } : {}) },
    });
    expect(withOrder.status).toBe(200);
    return withOrder.json as { id: string; links: Record<string, string> };
  };
  const get = async (url: string, token?: string) => call('GET', new URL(url).pathname + new URL(url).search, token ? { token } : {});
  return { ...env, packageWithImages, get };
}

describe('IIIF documents behind self_iiif_manifest and self_iiif_sequence', () => {
  it("lists a published package's images as canvases in display order, each painted with the file's own content", async () => {
    const { call, alice, packageWithImages, get, app } = await setUp();
    const draft = await packageWithImages();
    const published = await call('POST', `/api/packages/${draft.id}/draft/actions/publish`, { token: alice });
    expect(published.status).toBe(202);
    const links = published.json.links as Record<string, string>;

    const manifest = await get(links['self_iiif_manifest'] as string);
    expect(manifest.status).toBe(200);
    expect(manifest.json['@context']).toBe('http://iiif.io/api/presentation/2/context.json');
    expect(manifest.json['@type']).toBe('sc:Manifest');
    expect(manifest.json['@id']).toBe(links['self_iiif_manifest']);
    expect(manifest.json.label).toBe('Coastline photographs');
    expect(manifest.json.description).toBe('Two aerial views.');
    expect(manifest.json.metadata).toContainEqual({ label: 'Publication Date', value: metadata.publication_date });
    expect(manifest.json.related).toEqual({ '@id': links['self_html'], format: 'text/html' });

    const [sequence] = manifest.json.sequences;
    expect(sequence['@id']).toBe(links['self_iiif_sequence']);
    const canvases = sequence.canvases as { '@id': string; label: string; width: number; height: number; images: { resource: { '@id': string; format: string; width: number }; on: string }[] }[];
    expect(canvases.map((c) => [c.label, c.width, c.height])).toEqual([
      ['south.png', 300, 1200],
      ['north shore.png', 640, 480],
    ]);
    const files = await call('GET', `/api/packages/${draft.id}/files`);
    const contentOf = (key: string) => files.json.entries.find((e: { key: string }) => e.key === key).links.content as string;
    for (const canvas of canvases) {
      const [image] = canvas.images;
      expect(image?.on).toBe(canvas['@id']);
      expect(image?.resource).toMatchObject({ '@id': contentOf(canvas.label), format: 'image/png', width: canvas.width });
      // A viewer fetches the painted bytes from that address, anonymously.
      const bytes = await app.request(new URL(image!.resource['@id']).pathname);
      expect(bytes.status).toBe(200);
      expect(bytes.headers.get('content-type')).toBe('image/png');
      // Each canvas is also served at its own id.
      const own = await get(canvas['@id']);
      expect(own.status).toBe(200);
      expect(own.json.images[0].resource['@id']).toBe(image!.resource['@id']);
      // And the annotation that paints it, at its own.
      const annotation = await get((image as unknown as { '@id': string })['@id']);
      expect(annotation.status).toBe(200);
      expect(annotation.json).toMatchObject({ '@type': 'oa:Annotation', on: canvas['@id'], resource: image!.resource });
    }

    // JSON unless JSON-LD is asked for (IIIF Presentation 2.1, 6.1); anything else is a 406.
    const manifestPath = new URL(links['self_iiif_manifest'] as string).pathname;
    expect(manifest.headers.get('content-type')).toBe('application/json');
    const asLd = await app.request(manifestPath, { headers: { accept: 'application/ld+json;profile="http://iiif.io/api/presentation/2/context.json"' } });
    expect(asLd.status).toBe(200);
    expect(asLd.headers.get('content-type')).toBe('application/ld+json;profile="http://iiif.io/api/presentation/2/context.json"');
    expect(asLd.headers.get('vary')).toContain('Accept');
    expect(await asLd.json()).toEqual(manifest.json);
    expect((await app.request(manifestPath, { headers: { accept: 'text/csv' } })).status).toBe(406);

    const alone = await get(links['self_iiif_sequence'] as string);
    expect(alone.status).toBe(200);
    expect(alone.json.canvases).toEqual(canvases);
    expect((await get(`${links['self_iiif_manifest']!.replace(/\/manifest$/, '')}/canvas/notes.txt`)).status).toBe(404);
  });

  it("answers a draft's documents to those who may read the draft, and a restricted package's files to those who may read them", async () => {
    const { alice, bob, packageWithImages, get, call } = await setUp();
    const draft = await packageWithImages();
    const url = draft.links['self_iiif_manifest'] as string;
    // GEO Knowledge Hub's names for a package's IIIF documents.
    expect(url).toBe(`http://krs.test/api/iiif/package-draft:${draft.id}/manifest`);
    const own = await get(url, alice);
    expect(own.status).toBe(200);
    expect(own.json.sequences[0].canvases).toHaveLength(2);
    expect(own.json.related['@id']).toBe(draft.links['self_html']);
    expect((await get(url)).status).toBe(401);
    expect((await get(url, bob)).status).toBe(403);

    const restricted = await packageWithImages({ record: 'public', files: 'restricted' });
    const done = await call('POST', `/api/packages/${restricted.id}/draft/actions/publish`, { token: alice });
    expect(done.status).toBe(202);
    const published = done.json.links['self_iiif_manifest'] as string;
    expect(published).toBe(`http://krs.test/api/iiif/package:${restricted.id}/manifest`);
    expect((await get(published, alice)).json.sequences[0].canvases).toHaveLength(2);
    expect((await get(published)).status).toBe(401);
  });

  it('answers a resource by the same names, a package without files with no canvas, and an unknown name with a JSON 404', async () => {
    const { call, alice, get } = await setUp();
    const resource = await call('POST', '/api/records', { token: alice, json: { metadata } });
    // InvenioRDM's names for a record's, and the name links gave before.
    for (const name of ['draft', 'draft:record']) {
      const byName = await call('GET', `/api/iiif/${name}:${resource.json.id}/manifest`, { token: alice });
      expect(byName.status, name).toBe(200);
      expect(byName.json['@id']).toBe(`http://krs.test/api/iiif/draft:${resource.json.id}/manifest`);
      expect(byName.json.sequences[0].canvases).toEqual([]);
    }
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata, files: { enabled: false } } });
    const done = await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice });
    const manifest = await get(done.json.links['self_iiif_manifest']);
    expect(manifest.status).toBe(200);
    expect(manifest.json.sequences[0].canvases).toEqual([]);
    for (const path of ['/api/iiif/record:no-such-id/manifest', '/api/iiif/item:abc/manifest', `/api/iiif/record:${pkg.json.id}/sequence/other`]) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });
});

describe("a package's requests and review links", () => {
  it('lists no requests for a published package to whoever reads it, and tells a draft reader there is no review', async () => {
    const { call, alice, bob, get } = await setUp();
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata, files: { enabled: false } } });
    const review = pkg.json.links['review'] as string;
    const noReview = await get(review, alice);
    expect(noReview.status).toBe(404);
    expect(noReview.json.message).toMatch(/no review/);
    expect((await get(review)).status).toBe(401);
    expect((await get(review, bob)).status).toBe(403);

    const done = await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice });
    const requests = await get(done.json.links['requests']);
    expect(requests.status).toBe(200);
    expect(requests.json).toEqual({ aggregations: {}, hits: { hits: [], total: 0 }, links: { self: done.json.links['requests'] }, sortBy: 'newest' });
    expect((await call('GET', '/api/packages/no-such-id/requests')).status).toBe(404);

    const hidden = await call('POST', '/api/packages', { token: alice, json: { metadata, files: { enabled: false }, access: { record: 'restricted', files: 'restricted' } } });
    const hiddenDone = await call('POST', `/api/packages/${hidden.json.id}/draft/actions/publish`, { token: alice });
    expect((await get(hiddenDone.json.links['requests'])).status).toBe(401);
    expect((await get(hiddenDone.json.links['requests'], bob)).status).toBe(403);
  });
});
