import { parse as parseBibtex } from '@retorquere/bibtex-parser';
import jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import { convert } from 'xmlbuilder2';
import { makeApp, metadata } from './make-app.ts';

const full = {
  ...metadata,
  title: 'Sea ice <i>extent</i> </div><script>alert(1)</script>',
  description: '<p>Daily <b>sea ice</b> &amp; snow</p>',
  publisher: 'Polar Data Centre',
  version: 'v2.1',
  creators: [
    {
      person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
      affiliations: [{ name: 'University of Lagos' }],
    },
    { person_or_org: { type: 'organizational', name: 'European Space Agency' } },
  ],
  contributors: [{ person_or_org: { type: 'personal', given_name: 'Bo', family_name: 'Li' }, role: { id: 'datacurator' } }],
  subjects: [{ subject: 'sea ice' }],
  rights: [{ id: 'cc-by-4.0' }],
  dates: [{ date: '2020/2023', type: { id: 'collected' } }],
  related_identifiers: [
    { identifier: '10.1234/abc', scheme: 'doi', relation_type: { id: 'issupplementto' } },
    { identifier: 'not-a-scheme-datacite-knows', scheme: 'other', relation_type: { id: 'cites' } },
  ],
  locations: {
    features: [
      { place: 'Arctic', geometry: { type: 'Point', coordinates: [10, 80] } },
      { place: 'Barents Sea', geometry: { type: 'Polygon', coordinates: [[[20, 70], [50, 70], [50, 80], [20, 80], [20, 70]]] } },
    ],
  },
  funding: [{ funder: { name: 'Research Council' }, award: { number: 'RC-42', title: { en: 'Ice watch' } } }],
};

async function published(meta: Record<string, unknown> = full) {
  const env = await makeApp();
  const { call, alice } = env;
  const draft = await call('POST', '/api/records', { token: alice, json: { metadata: meta } });
  const id = draft.json.id as string;
  await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'extent.csv' }] });
  await call('PUT', `/api/records/${id}/draft/files/extent.csv/content`, { token: alice, body: 'a,b', headers: { 'content-type': 'application/octet-stream' } });
  await call('POST', `/api/records/${id}/draft/files/extent.csv/commit`, { token: alice });
  const publish = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
  expect(publish.status, publish.text).toBe(202);
  return { ...env, id };
}

type Xml = { [key: string]: unknown };
const xml = (text: string) => convert(text, { format: 'object' }) as Xml;

describe('export formats', () => {
  it('serves every format at its export link and by Accept on the record GET, with the same content', async () => {
    const { call, id } = await published();
    const formats: [string, string][] = [
      ['json-ld', 'application/ld+json'],
      ['datacite-json', 'application/vnd.datacite.datacite+json'],
      ['datacite-xml', 'application/vnd.datacite.datacite+xml'],
      ['dublincore', 'application/x-dc+xml'],
      ['csl', 'application/vnd.citationstyles.csl+json'],
      ['bibtex', 'application/x-bibtex'],
      ['geojson', 'application/geo+json'],
      ['marcxml', 'application/marcxml+xml'],
    ];
    for (const [format, type] of formats) {
      const link = await call('GET', `/records/${id}/export/${format}`);
      expect(link.status, format).toBe(200);
      expect(link.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
      const api = await call('GET', `/api/records/${id}`, { headers: { accept: type } });
      expect(api.status, format).toBe(200);
      expect(api.headers.get('content-type')).toBe(type);
      if (type.endsWith('json')) expect(api.json).toEqual(link.json);
      else expect(api.text.replace(/\s+/g, '')).toBe(link.text.replace(/\s+/g, ''));
    }
    expect((await call('GET', `/records/${id}/export/json`)).json.id).toBe(id);
  });

  it('maps the record to DataCite 4.5, in JSON and in XML alike', async () => {
    const { call, id } = await published();
    const d = (await call('GET', `/records/${id}/export/datacite-json`)).json;
    expect(d.types).toEqual({ resourceTypeGeneral: 'Dataset', resourceType: 'Dataset' });
    expect(d.creators).toEqual([
      {
        name: 'Obi, Ada', nameType: 'Personal', givenName: 'Ada', familyName: 'Obi',
        nameIdentifiers: [{ nameIdentifier: '0000-0002-1825-0097', nameIdentifierScheme: 'ORCID', schemeUri: 'https://orcid.org' }],
        affiliation: [{ name: 'University of Lagos' }],
      },
      { name: 'European Space Agency', nameType: 'Organizational' },
    ]);
    expect(d.contributors[0].contributorType).toBe('DataCurator');
    expect(d.publisher).toBe('Polar Data Centre');
    expect(d.publicationYear).toBe('2024');
    expect(d.dates).toEqual([{ date: '2024-06-01', dateType: 'Issued' }, { date: '2020/2023', dateType: 'Collected' }]);
    // A scheme outside DataCite's list cannot be a related identifier: it is left out.
    expect(d.relatedIdentifiers).toEqual([{ relatedIdentifier: '10.1234/abc', relatedIdentifierType: 'DOI', relationType: 'IsSupplementTo' }]);
    expect(d.rightsList[0]).toMatchObject({ rightsIdentifier: 'cc-by-4.0', rightsIdentifierScheme: 'SPDX' });
    expect(d.descriptions).toEqual([{ description: 'Daily sea ice & snow', descriptionType: 'Abstract' }]);
    expect(d.geoLocations).toEqual([
      { geoLocationPlace: 'Arctic', geoLocationPoint: { pointLongitude: 10, pointLatitude: 80 } },
      { geoLocationPlace: 'Barents Sea', geoLocationBox: { westBoundLongitude: 20, eastBoundLongitude: 50, southBoundLatitude: 70, northBoundLatitude: 80 } },
    ]);
    expect(d.fundingReferences).toEqual([{ funderName: 'Research Council', awardNumber: 'RC-42', awardTitle: 'Ice watch' }]);
    expect(d.version).toBe('v2.1');

    const doc = xml((await call('GET', `/records/${id}/export/datacite-xml`)).text);
    const resource = doc['resource'] as Xml;
    expect(resource['@xmlns']).toBe('http://datacite.org/schema/kernel-4');
    const creators = (resource['creators'] as Xml)['creator'] as Xml[];
    expect((creators[0] as Xml)['creatorName']).toEqual({ '@nameType': 'Personal', '#': 'Obi, Ada' });
    expect((creators[0] as Xml)['nameIdentifier']).toEqual({ '@nameIdentifierScheme': 'ORCID', '@schemeURI': 'https://orcid.org', '#': '0000-0002-1825-0097' });
    expect(resource['publicationYear']).toBe('2024');
    expect(resource['resourceType']).toEqual({ '@resourceTypeGeneral': 'Dataset', '#': 'Dataset' });
    expect((await call('GET', `/records/${id}/export/datacite-xml`)).text).toContain('<title>Sea ice &lt;i&gt;extent&lt;/i&gt; &lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });

  it('gives library catalogues MARC 21 XML: fields in tag order, people with affiliations, ORCID and roles', async () => {
    const { call, id } = await published();
    const text = (await call('GET', `/records/${id}/export/marcxml`)).text;
    const record = xml(text)['record'] as Xml;
    expect(record['@xmlns']).toBe('http://www.loc.gov/MARC21/slim');
    // A dataset is a computer file (leader 06 "m"), a monograph, in Unicode.
    expect(record['leader']).toBe('00000nmm a2200000uu 4500');
    expect((record['leader'] as string).length).toBe(24);
    expect((record['controlfield'] as Xml[])[0]).toEqual({ '@tag': '001', '#': id });
    expect((record['controlfield'] as Xml[])[1]?.['#']).toMatch(/^\d{14}\.0$/);
    const fields = (record['datafield'] as Xml[]).map((f) => {
      const subfields = [f['subfield']].flat() as Xml[];
      return [f['@tag'], `${f['@ind1']}${f['@ind2']}`, subfields.map((s) => `$${s['@code']} ${s['#']}`).join(' ')];
    });
    const tags = fields.map(([tag]) => tag as string);
    expect(tags).toEqual([...tags].sort());
    expect(fields).toContainEqual(['100', '1 ', '$a Obi, Ada $u University of Lagos $0 (orcid)0000-0002-1825-0097']);
    expect(fields).toContainEqual(['710', '2 ', '$a European Space Agency']);
    expect(fields.find(([tag, , sub]) => tag === '700' && (sub as string).startsWith('$a Li, Bo'))?.[2]).toMatch(/^\$a Li, Bo \$e \S/);
    expect(fields.find(([tag]) => tag === '245')?.[1]).toBe('10');
    expect(text).toContain('<subfield code="a">Sea ice &lt;i&gt;extent&lt;/i&gt; &lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;</subfield>');
    expect(fields).toContainEqual(['264', ' 1', '$b Polar Data Centre $c 2024-06-01']);
    expect(fields.find(([tag]) => tag === '520')?.[1]).toBe('  ');
    expect(text).toContain('<subfield code="a">Daily sea ice &amp; snow</subfield>');
    expect(fields).toContainEqual(['653', '  ', '$a sea ice']);
    expect(fields.find(([tag]) => tag === '540')?.[2]).toMatch(/^\$a /);
    expect(fields).toContainEqual(['856', '40', `$u http://krs.test/records/${id} $z Landing page`]);
  });

  it('gives reference managers CSL-JSON and BibTeX, and formatted citations in the style asked for', async () => {
    const { call, id } = await published();
    const csl = (await call('GET', `/records/${id}/export/csl`)).json;
    expect(csl).toMatchObject({ id, type: 'dataset', title: full.title, publisher: 'Polar Data Centre', issued: { 'date-parts': [[2024, 6, 1]] } });
    expect(csl.author).toEqual([{ family: 'Obi', given: 'Ada' }, { literal: 'European Space Agency' }]);
    const bibtex = (await call('GET', `/records/${id}/export/bibtex`)).text;
    // BibTeX's month macro, as reference managers and biber read it (not `{jun 1}`).
    expect(bibtex).toMatch(/^\s*month = jun,$/m);
    const bib = parseBibtex(bibtex);
    expect(bib.errors).toEqual([]);
    expect(bib.entries).toHaveLength(1);
    expect(bib.entries[0]?.fields).toMatchObject({
      author: [{ lastName: 'Obi', firstName: 'Ada' }, { name: 'European Space Agency' }],
      year: '2024',
      publisher: ['Polar Data Centre'],
    });
    // The title's <i> is read as the CSL rich text it looks like; the rest comes through as text.
    expect(bib.entries[0]?.fields['title']).toMatch(/^Sea ice .*extent.* <\/div><script>alert\(1\)<\/script>$/);

    const apa = await call('GET', `/api/records/${id}`, { headers: { accept: 'text/x-bibliography' } });
    expect(apa.status).toBe(200);
    expect(apa.headers.get('content-type')).toBe('text/x-bibliography; charset=utf-8');
    expect(apa.text).toContain('Obi, A. & European Space Agency. (2024).');
    const vancouver = await call('GET', `/api/records/${id}?style=vancouver`, { headers: { accept: 'text/x-bibliography' } });
    expect(vancouver.text).toContain('Obi A, European Space Agency.');
    expect((await call('GET', `/records/${id}/export/citation?style=harvard1`)).text).toContain('Obi, A. and European Space Agency (2024)');
    const unknown = await call('GET', `/api/records/${id}?style=chicago`, { headers: { accept: 'text/x-bibliography' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain('apa, harvard1, vancouver');
    expect((await call('GET', `/api/records/${id}?locale=xx-YY`, { headers: { accept: 'text/x-bibliography' } })).status).toBe(400);
  });

  it('gives JSON-LD that a JSON-LD processor expands into schema.org terms, field by field', async () => {
    const { call, id } = await published();
    const doc = (await call('GET', `/records/${id}/export/json-ld`)).json;
    // The processor fetches no context over the network: schema.org's context maps every term under its @vocab.
    const documentLoader = async (url: string) => {
      if (!url.startsWith('https://schema.org')) throw new Error(`unexpected context ${url}`);
      return { contextUrl: undefined, documentUrl: url, document: { '@context': { '@vocab': 'https://schema.org/' } } };
    };
    const [node] = (await jsonld.expand(doc, { documentLoader })) as Record<string, unknown>[];
    const value = (key: string) => (node?.[`https://schema.org/${key}`] as { '@value'?: unknown; '@id'?: string }[] | undefined)?.map((v) => v['@value'] ?? v['@id'] ?? v);
    expect(node?.['@type']).toEqual(['https://schema.org/Dataset']);
    expect(node?.['@id']).toBe(`http://krs.test/records/${id}`);
    expect(value('name')).toEqual([full.title]);
    expect(value('description')).toEqual(['Daily sea ice & snow']);
    expect(value('datePublished')).toEqual(['2024-06-01']);
    expect(value('version')).toEqual(['v2.1']);
    const creators = node?.['https://schema.org/creator'] as Record<string, unknown>[];
    expect(creators.map((c) => c['@id'] ?? (c['https://schema.org/name'] as { '@value': string }[])[0]?.['@value'])).toEqual(['https://orcid.org/0000-0002-1825-0097', 'European Space Agency']);
    expect(creators[1]?.['@type']).toEqual(['https://schema.org/Organization']);
    const places = node?.['https://schema.org/spatialCoverage'] as Record<string, unknown>[];
    expect(places).toHaveLength(2);
    const box = (places[1]?.['https://schema.org/geo'] as Record<string, unknown>[])[0];
    expect((box?.['https://schema.org/box'] as { '@value': string }[])[0]?.['@value']).toBe('70 20 80 50');
  });

  it('answers a linkset of the record and its files, and GeoJSON of its places', async () => {
    const { call, id } = await published();
    const res = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/linkset+json' } });
    expect(res.headers.get('content-type')).toBe('application/linkset+json');
    const [anchor, item] = res.json.linkset;
    expect(anchor.anchor).toBe(`http://krs.test/records/${id}`);
    expect(anchor['cite-as']).toEqual([{ href: `http://krs.test/records/${id}` }]);
    expect(anchor.author).toEqual([{ href: 'https://orcid.org/0000-0002-1825-0097' }]);
    expect(anchor.describedby).toContainEqual({ href: `http://krs.test/records/${id}/export/datacite-json`, type: 'application/vnd.datacite.datacite+json' });
    expect(anchor.item).toEqual([{ href: `http://krs.test/api/records/${id}/files/extent.csv/content`, type: 'text/csv' }]);
    expect(item).toEqual({ anchor: `http://krs.test/api/records/${id}/files/extent.csv/content`, collection: [{ href: `http://krs.test/records/${id}`, type: 'text/html' }] });

    const geo = (await call('GET', `/records/${id}/export/geojson`)).json;
    expect(geo.type).toBe('FeatureCollection');
    expect(geo.features[0]).toEqual({ type: 'Feature', geometry: { type: 'Point', coordinates: [10, 80] }, properties: { place: 'Arctic' } });
  });

  it('shows the citation on the landing page with a style switcher, the record text escaped', async () => {
    const { app, id } = await published();
    const page = await (await app.request(`/records/${id}`, { headers: { accept: 'text/html' } })).text();
    const section = /<section aria-labelledby="h-citation".*?<\/section>/s.exec(page)?.[0] ?? '';
    expect(section).toContain('Obi, A. &#38; European Space Agency. (2024).');
    expect(section).not.toContain('<script>');
    expect(section).toContain('&#60;script&#62;');
    expect(section).toContain('<option value="apa" selected="">APA</option>');
    const other = await (await app.request(`/records/${id}?style=vancouver`, { headers: { accept: 'text/html' } })).text();
    expect(other).toContain('<option value="vancouver" selected="">Vancouver</option>');
    expect(other).toContain('Obi A, European Space Agency.');
    for (const format of ['datacite-xml', 'bibtex', 'csl', 'geojson', 'dublincore']) expect(page).toContain(`href="http://krs.test/records/${id}/export/${format}"`);
    const bad = await app.request(`/records/${id}?style=nope`, { headers: { accept: 'text/html' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('text/html');
  });

  it('lists the first hundred creators on the landing page and every one in the exports', async () => {
    const creators = Array.from({ length: 150 }, (_, i) => ({ person_or_org: { type: 'personal', given_name: 'A', family_name: `N${i}` } }));
    const { app, call, id } = await published({ ...metadata, creators });
    const page = await (await app.request(`/records/${id}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('and 50 more');
    expect(page).not.toContain('A N100<');
    const embedded = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)?.[1] ?? '{}');
    expect(embedded.creator).toHaveLength(100);
    expect((await call('GET', `/records/${id}/export/json-ld`)).json.creator).toHaveLength(150);
    expect((await call('GET', `/records/${id}/export/datacite-json`)).json.creators).toHaveLength(150);
  });

  it('exports packages as collections and refuses what it has not got', async () => {
    const { call, alice, id } = await published();
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'A package' } } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const d = (await call('GET', `/packages/${pkg.json.id}/export/datacite-json`)).json;
    expect(d.types.resourceTypeGeneral).toBe('Collection');
    expect((await call('GET', `/packages/${pkg.json.id}/export/csl`)).json.type).toBe('collection');

    const unknown = await call('GET', `/records/${id}/export/marc21-binary`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toContain('datacite-xml');
    expect((await call('GET', '/records/nope-00000/export/bibtex')).status).toBe(404);
    const draftOnly = await call('POST', '/api/records', { token: alice, json: { metadata } });
    expect((await call('GET', `/records/${draftOnly.json.id}/export/bibtex`, { token: alice })).status).toBe(404);
    const refused = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/marc+xml' } });
    expect(refused.status).toBe(406);
    expect(refused.json.message).toContain('application/vnd.datacite.datacite+xml');
  });

  it('names a package\'s resources as the parts of its collection, in DataCite JSON, XML and OAI-PMH, and in JSON-LD', async () => {
    const { call, alice } = await makeApp();
    const resources: string[] = [];
    for (const title of ['Training samples', 'Deforestation maps']) {
      resources.push((await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title }, files: { enabled: false } } })).json.id);
    }
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'Detecting deforestation' }, files: { enabled: false } } })).json.id;
    await call('POST', `/api/packages/${pkg}/context/actions/associate`, { token: alice, json: { records: resources.map((id) => ({ id })) } });
    await call('POST', `/api/packages/${pkg}/draft/resources`, { token: alice, json: { resources: resources.map((id) => ({ id })) } });
    expect((await call('POST', `/api/packages/${pkg}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const parts = resources.map((id) => ({ relatedIdentifier: `http://krs.test/records/${id}`, relatedIdentifierType: 'URL', relationType: 'HasPart' }));
    expect((await call('GET', `/packages/${pkg}/export/datacite-json`)).json.relatedIdentifiers).toEqual(parts);
    const xml = (await call('GET', `/packages/${pkg}/export/datacite-xml`)).text;
    for (const id of resources) expect(xml).toContain(`<relatedIdentifier relatedIdentifierType="URL" relationType="HasPart">http://krs.test/records/${id}</relatedIdentifier>`);
    const oai = (await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_datacite&identifier=oai:krs.test:${pkg}`)).text;
    expect(oai.match(/relationType="HasPart"/g)).toHaveLength(2);
    expect((await call('GET', `/packages/${pkg}/export/json-ld`)).json.hasPart).toEqual(resources.map((id) => ({ '@type': 'CreativeWork', url: `http://krs.test/records/${id}` })));
    // A resource has no parts: it is one.
    expect((await call('GET', `/records/${resources[0]}/export/datacite-json`)).json.relatedIdentifiers).toEqual([{ relatedIdentifier: `http://krs.test/packages/${pkg}`, relatedIdentifierType: 'URL', relationType: 'IsPartOf' }]);
    expect((await call('GET', `/records/${resources[0]}/export/json-ld`)).json.hasPart).toBeUndefined();
  });

  it('names the package holding a resource, as far as the reader may see it, in its record JSON, DataCite JSON, XML and OAI-PMH, JSON-LD and landing page', async () => {
    const { call, alice } = await makeApp({ doiPrefix: '10.5555' });
    const resource = (await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Training samples' }, files: { enabled: false } } })).json.id;
    const created = (await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'Detecting deforestation' }, files: { enabled: false } } })).json;
    const pkg = created.id;
    await call('POST', `/api/packages/${pkg}/context/actions/associate`, { token: alice, json: { records: [{ id: resource }] } });
    await call('POST', `/api/packages/${pkg}/draft/resources`, { token: alice, json: { resources: [{ id: resource }] } });
    // Published on its own while the package is still a draft: nothing of the package shows.
    expect((await call('POST', `/api/records/${resource}/draft/actions/publish`, { token: alice })).status).toBe(202);
    for (const token of [undefined, alice]) {
      const json = (await call('GET', `/api/records/${resource}`, { ...(token ? { token } : {}) })).json;
      expect(json.relationship).toBeUndefined();
      expect(json.parent.relationship).toBeUndefined();
      expect(JSON.stringify(json)).not.toContain(created.parent.id);
      expect((await call('GET', `/records/${resource}`, { ...(token ? { token } : {}) })).text).not.toContain('Detecting deforestation');
    }
    expect((await call('GET', `/records/${resource}/export/datacite-json`)).json.relatedIdentifiers).toBeUndefined();
    // Listings show a hit as its GET does (and keep its text meanwhile).
    const hitOf = async (path: string) => (await call('GET', path)).json.hits.hits.find((h: { id: string }) => h.id === resource);
    const listings = ['/api/records?q=training', `/api/records/${resource}/versions`];
    for (const path of listings) expect((await hitOf(path)).parent.relationship).toBeUndefined();

    // Published without a DOI: named by its landing page.
    expect((await call('POST', `/api/packages/${pkg}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const json = (await call('GET', `/api/records/${resource}`)).json;
    expect(json.parent.relationship).toEqual({ managed_by: { id: created.parent.id } });
    expect(json.relationship).toEqual({ packages: [{ id: pkg }] });
    for (const path of listings) expect(await hitOf(path)).toMatchObject({ parent: { relationship: json.parent.relationship }, relationship: json.relationship });
    expect((await call('GET', '/search?q=training')).text).toContain(`Part of <a href="http://krs.test/packages/${pkg}">Detecting deforestation</a>`);
    const byUrl = { relatedIdentifier: `http://krs.test/packages/${pkg}`, relatedIdentifierType: 'URL', relationType: 'IsPartOf' };
    expect((await call('GET', `/records/${resource}/export/datacite-json`)).json.relatedIdentifiers).toEqual([byUrl]);
    expect((await call('GET', `/records/${resource}/export/json-ld`)).json.isPartOf).toEqual({ '@type': 'CreativeWork', url: `http://krs.test/packages/${pkg}`, name: 'Detecting deforestation' });
    expect((await call('GET', `/records/${resource}/export/dublincore`)).text).toContain(`<dc:relation>url:http://krs.test/packages/${pkg}</dc:relation>`);
    expect((await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:krs.test:${resource}`)).text).toContain(`<dc:relation>url:http://krs.test/packages/${pkg}</dc:relation>`);
    expect((await call('GET', `/records/${resource}/export/marcxml`)).text).toMatch(
      new RegExp(`<datafield tag="773" ind1="0" ind2="8">\\s*<subfield code="t">Detecting deforestation</subfield>\\s*<subfield code="o">http://krs.test/packages/${pkg}</subfield>\\s*</datafield>`),
    );
    const page = (await call('GET', `/records/${resource}`)).text;
    expect(page).toContain(`Part of <a href="http://krs.test/packages/${pkg}">Detecting deforestation</a>`);
    expect(page).toContain('"isPartOf"');

    // A new version with a DOI, retitled: every answer kept for the resource names it at once.
    const next = (await call('POST', `/api/packages/${pkg}/versions`, { token: alice })).json.id;
    await call('PUT', `/api/packages/${next}/draft`, { token: alice, json: { metadata: { ...metadata, title: 'Detecting deforestation, second edition' }, files: { enabled: false } } });
    await call('POST', `/api/packages/${next}/draft/pids/doi`, { token: alice });
    expect((await call('POST', `/api/packages/${next}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const byDoi = { relatedIdentifier: `10.5555/${next}`, relatedIdentifierType: 'DOI', relationType: 'IsPartOf' };
    expect((await call('GET', `/records/${resource}/export/datacite-json`)).json.relatedIdentifiers).toEqual([byDoi]);
    expect((await call('GET', `/records/${resource}/export/datacite-xml`)).text).toContain(`<relatedIdentifier relatedIdentifierType="DOI" relationType="IsPartOf">10.5555/${next}</relatedIdentifier>`);
    const oai = (await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_datacite&identifier=oai:krs.test:${resource}`)).text;
    expect(oai).toContain(`<relatedIdentifier relatedIdentifierType="DOI" relationType="IsPartOf">10.5555/${next}</relatedIdentifier>`);
    expect((await call('GET', `/records/${resource}/export/dublincore`)).text).toContain(`<dc:relation>doi:10.5555/${next}</dc:relation>`);
    expect((await call('GET', `/records/${resource}/export/marcxml`)).text).toContain(`<subfield code="o">https://doi.org/10.5555/${next}</subfield>`);
    expect((await call('GET', `/records/${resource}/export/json-ld`)).json.isPartOf).toEqual({
      '@type': 'CreativeWork',
      '@id': `https://doi.org/10.5555/${next}`,
      url: `http://krs.test/packages/${next}`,
      name: 'Detecting deforestation, second edition',
    });
    expect((await call('GET', `/api/records/${resource}`)).json.relationship).toEqual({ packages: [{ id: next }] });
    for (const path of listings) expect((await hitOf(path)).relationship).toEqual({ packages: [{ id: next }] });
    expect((await call('GET', `/records/${resource}`)).text).toContain(`Part of <a href="http://krs.test/packages/${next}">Detecting deforestation, second edition</a>`);

    // Taken out of the package: it names none.
    await call('POST', `/api/packages/${pkg}/context/actions/dissociate`, { token: alice, json: { records: [{ id: resource }] } });
    expect((await call('GET', `/api/records/${resource}`)).json.relationship).toBeUndefined();
    expect((await call('GET', `/records/${resource}/export/datacite-json`)).json.relatedIdentifiers).toBeUndefined();
    expect((await call('GET', `/records/${resource}/export/json-ld`)).json.isPartOf).toBeUndefined();
    expect((await call('GET', `/records/${resource}/export/dublincore`)).text).not.toContain('<dc:relation>');
    expect((await call('GET', `/records/${resource}/export/marcxml`)).text).not.toContain('tag="773"');
    expect((await call('GET', `/records/${resource}`)).text).not.toContain('Part of');
  });

  it('shows a restricted package holding a public resource to those who may read it, and nothing of it to anyone else, in every answer', async () => {
    const { call, alice, bob } = await makeApp();
    const resource = (await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Training samples' }, files: { enabled: false } } })).json.id;
    const created = (await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'Closed package' }, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } } })).json;
    const pkg = created.id;
    await call('POST', `/api/packages/${pkg}/context/actions/associate`, { token: alice, json: { records: [{ id: resource }] } });
    await call('POST', `/api/packages/${pkg}/draft/resources`, { token: alice, json: { resources: [{ id: resource }] } });
    expect((await call('POST', `/api/packages/${pkg}/draft/actions/publish`, { token: alice })).status).toBe(202);
    for (const token of [undefined, bob]) {
      const init = token ? { token } : {};
      const answers = [
        (await call('GET', `/api/records/${resource}`, init)).text,
        (await call('GET', `/records/${resource}`, init)).text,
        (await call('GET', `/records/${resource}/export/datacite-json`, init)).text,
        (await call('GET', `/records/${resource}/export/json-ld`, init)).text,
        (await call('GET', `/records/${resource}/export/dublincore`, init)).text,
        (await call('GET', `/records/${resource}/export/marcxml`, init)).text,
        (await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:krs.test:${resource}`, init)).text,
      ];
      for (const text of answers) {
        expect(text).not.toContain('Closed package');
        expect(text).not.toContain(pkg);
        expect(text).not.toContain(created.parent.id);
      }
    }
    expect((await call('GET', `/api/records/${resource}`, { token: alice })).json.relationship).toEqual({ packages: [{ id: pkg }] });
    expect((await call('GET', `/records/${resource}`, { token: alice })).text).toContain('Closed package');
    expect((await call('GET', `/records/${resource}/export/marcxml`, { token: alice })).text).toContain('<subfield code="t">Closed package</subfield>');
    // The owner's export is not the one kept for anonymous readers, nor the other way round.
    expect((await call('GET', `/records/${resource}/export/datacite-json`, { token: alice })).json.relatedIdentifiers).toHaveLength(1);
    expect((await call('GET', `/records/${resource}/export/datacite-json`)).json.relatedIdentifiers).toBeUndefined();
    // Nor does a 304 hand an anonymous reader's tag to the owner.
    const anonymousTag = (await call('GET', `/api/records/${resource}`)).headers.get('etag') as string;
    expect((await call('GET', `/api/records/${resource}`, { token: alice, headers: { 'if-none-match': anonymousTag } })).status).toBe(200);
  });

  it('keeps restricted records out of exports as the record GET does', async () => {
    const { call, alice, bob } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } } });
    const id = draft.json.id;
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const anonymous = await call('GET', `/records/${id}/export/datacite-json`);
    const api = await call('GET', `/api/records/${id}`);
    expect(anonymous.status).toBe(api.status);
    expect(anonymous.status).toBeGreaterThanOrEqual(401);
    expect((await call('GET', `/records/${id}/export/datacite-json`, { token: bob })).status).toBe((await call('GET', `/api/records/${id}`, { token: bob })).status);
    expect((await call('GET', `/records/${id}/export/datacite-json`, { token: alice })).status).toBe(200);
  });

  it('offers DataCite to harvesters as oai_datacite and datacite, and MARC 21 as marcxml', async () => {
    const { call, id } = await published();
    const formats = xml((await call('GET', '/oai2d?verb=ListMetadataFormats')).text);
    const prefixes = (((formats['OAI-PMH'] as Xml)['ListMetadataFormats'] as Xml)['metadataFormat'] as Xml[]).map((f) => f['metadataPrefix']);
    expect(prefixes).toEqual(['oai_dc', 'oai_datacite', 'datacite', 'marcxml']);
    const record = xml((await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_datacite&identifier=oai:krs.test:${id}`)).text);
    const envelope = ((((record['OAI-PMH'] as Xml)['GetRecord'] as Xml)['record'] as Xml)['metadata'] as Xml)['oai_datacite'] as Xml;
    expect(envelope['schemaVersion']).toBe('4.5');
    const resource = (envelope['payload'] as Xml)['resource'] as Xml;
    expect((resource['publisher'] as string)).toBe('Polar Data Centre');
    const plain = xml((await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=datacite&identifier=oai:krs.test:${id}`)).text);
    expect(((((plain['OAI-PMH'] as Xml)['GetRecord'] as Xml)['record'] as Xml)['metadata'] as Xml)['resource']).toBeDefined();
    const marc = xml((await call('GET', `/oai2d?verb=GetRecord&metadataPrefix=marcxml&identifier=oai:krs.test:${id}`)).text);
    const marcRecord = ((((marc['OAI-PMH'] as Xml)['GetRecord'] as Xml)['record'] as Xml)['metadata'] as Xml)['record'] as Xml;
    expect(marcRecord['@xmlns']).toBe('http://www.loc.gov/MARC21/slim');
    expect((marcRecord['controlfield'] as Xml[])[0]).toEqual({ '@tag': '001', '#': id });
    // The same record as the export's, in the harvest's envelope.
    const exported = xml((await call('GET', `/records/${id}/export/marcxml`)).text)['record'] as Xml;
    expect(marcRecord['datafield']).toEqual(exported['datafield']);
    const listed = xml((await call('GET', '/oai2d?verb=ListRecords&metadataPrefix=marcxml')).text);
    expect((((listed['OAI-PMH'] as Xml)['ListRecords'] as Xml)['record'] as Xml)['metadata']).toHaveProperty('record');
  });
});
