import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const full = {
  ...metadata,
  title: 'Sea ice extent </script><script>alert(1)</script>',
  description: '<p>Daily <b>sea ice</b> &amp; snow</p>',
  creators: [
    {
      person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
      affiliations: [{ name: 'University of Lagos' }],
    },
  ],
  subjects: [{ subject: 'sea ice' }],
  rights: [{ id: 'cc-by-4.0' }],
  locations: { features: [{ place: 'Arctic', geometry: { type: 'Point', coordinates: [10, 80] } }] },
};

async function published() {
  const env = await makeApp();
  const { call, alice } = env;
  const draft = await call('POST', '/api/records', { token: alice, json: { metadata: full } });
  const id = draft.json.id as string;
  await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'extent.csv' }] });
  await call('PUT', `/api/records/${id}/draft/files/extent.csv/content`, { token: alice, body: 'a,b', headers: { 'content-type': 'application/octet-stream' } });
  await call('POST', `/api/records/${id}/draft/files/extent.csv/commit`, { token: alice });
  expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
  return { ...env, id };
}

describe('schema.org JSON-LD and Signposting', () => {
  it('answers the record GET in JSON-LD on Accept: application/ld+json, field by field from the record', async () => {
    const { call, id } = await published();
    const res = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/ld+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/ld+json');
    const doc = res.json;
    expect(doc['@context']).toBe('https://schema.org');
    expect(doc['@type']).toBe('Dataset');
    expect(doc['@id']).toBe(`http://krs.test/records/${id}`);
    expect(doc.name).toBe(full.title);
    expect(doc.description).toBe('Daily sea ice & snow');
    expect(doc.datePublished).toBe(metadata.publication_date);
    expect(doc.creator).toEqual([{ '@type': 'Person', name: 'Ada Obi', '@id': 'https://orcid.org/0000-0002-1825-0097', affiliation: [{ '@type': 'Organization', name: 'University of Lagos' }] }]);
    expect(doc.keywords).toEqual(['sea ice']);
    expect(doc.spatialCoverage).toEqual([{ '@type': 'Place', name: 'Arctic', geo: { '@type': 'GeoCoordinates', latitude: 80, longitude: 10 } }]);
    expect(doc.isAccessibleForFree).toBe(true);
    // A URL, as schema.org and dataset search engines want it, from the license vocabulary.
    expect(doc.license).toBe('https://creativecommons.org/licenses/by/4.0/legalcode');
    // Only the record GET speaks JSON-LD; listings refuse it as any type they cannot serve.
    expect((await call('GET', '/api/records', { headers: { accept: 'application/ld+json' } })).status).toBe(406);
  });

  it('signposts the record on the API and on its landing page: cite-as, describedby, author, type, and items on the page', async () => {
    const { call, app, id } = await published();
    const api = await call('GET', `/api/records/${id}`);
    const header = api.headers.get('link') ?? '';
    expect(header).toContain(`<http://krs.test/records/${id}>; rel="cite-as"`);
    expect(header).toContain(`<http://krs.test/api/records/${id}>; rel="describedby"; type="application/json"`);
    expect(header).toContain(`<http://krs.test/records/${id}/export/json-ld>; rel="describedby"; type="application/ld+json"`);
    expect(header).toContain(`<http://krs.test/records/${id}/export/datacite-xml>; rel="describedby"; type="application/vnd.datacite.datacite+xml"`);
    expect(header).toContain(`<http://krs.test/api/records/${id}>; rel="linkset"; type="application/linkset+json"`);
    expect(header).toContain('<https://orcid.org/0000-0002-1825-0097>; rel="author"');
    expect(header).toContain('<https://schema.org/AboutPage>; rel="type"');
    expect(header).toContain('<https://creativecommons.org/licenses/by/4.0/legalcode>; rel="license"');
    const page = await app.request(`/records/${id}`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('link')).toContain(`<http://krs.test/api/records/${id}/files/extent.csv/content>; rel="item"`);
    const text = await page.text();
    const embedded = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(text)?.[1] ?? '';
    // The title's "</script>" cannot end the element early: "<" is escaped inside it.
    expect(embedded).not.toContain('</script>');
    const doc = JSON.parse(embedded);
    expect(doc.name).toBe(full.title);
    expect(doc.distribution).toEqual([{ '@type': 'DataDownload', name: 'extent.csv', contentUrl: `http://krs.test/api/records/${id}/files/extent.csv/content`, contentSize: '3', encodingFormat: 'text/csv' }]);
  });

  it('keeps the Link header bounded for a record with thousands of ORCID creators', async () => {
    const { call, alice } = await makeApp();
    const creators = Array.from({ length: 2000 }, (_, i) => ({
      person_or_org: { type: 'personal', given_name: 'A', family_name: `N${i}`, identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
    }));
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, creators }, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${draft.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const header = (await call('GET', `/api/records/${draft.json.id}`)).headers.get('link') ?? '';
    expect(header.length).toBeLessThanOrEqual(6000);
    expect(header).toContain('rel="cite-as"');
    expect(header.match(/rel="author"/g)?.length).toBe(50);
  });
});
