import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const REPEATED = ['ListIdentifiers.header', 'record', 'ListSets.set', 'metadataFormat', 'header.setSpec', 'dc.title', 'dc.creator', 'dc.identifier', 'dc.rights', 'OAI-PMH.error'];
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  // Elements that may repeat are always lists, so a page of one reads like a page of many.
  isArray: (_name, jpath) => REPEATED.some((end) => String(jpath).endsWith(end)),
});

type Xml = Record<string, any>;
/** The API writes instants as InvenioRDM does (`2026-03-01 10:00:00.000000+00:00`); OAI datestamps are UTC seconds. */
const stamp = (apiInstant: string) => `${apiInstant.replace(' ', 'T').slice(0, 19)}Z`;

async function setUp(pageSize = 2) {
  const env = await makeApp({}, undefined, { oai: { pageSize, adminEmail: 'oai@krs.test' } });
  const { call, alice } = env;
  const publish = async (kind: 'records' | 'packages', title: string, access?: unknown) => {
    const draft = await call('POST', `/api/${kind}`, { token: alice, json: { metadata: { ...metadata, title }, files: { enabled: false }, ...(access ? { access } : {}) } });
    const done = await call('POST', `/api/${kind}/${draft.json.id}/draft/actions/publish`, { token: alice });
    expect(done.status).toBe(202);
    return done.json as { id: string; pids: { oai: { identifier: string } }; updated: string };
  };
  const oai = async (query: string, init?: { method?: string; body?: string; type?: string }) => {
    const res =
      init?.method === 'POST'
        ? await env.app.request('/oai2d', { method: 'POST', body: init.body ?? '', headers: { 'content-type': init.type ?? 'application/x-www-form-urlencoded' } })
        : await env.app.request(`/oai2d?${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    const text = await res.text();
    return { text, xml: (parser.parse(text) as Xml)['OAI-PMH'] as Xml };
  };
  const errorOf = async (query: string) => ((await oai(query)).xml['error'] as Xml[] | undefined)?.[0]?.['@code'];
  return { ...env, publish, oai, errorOf };
}

describe('OAI-PMH at /oai2d', () => {
  it('identifies the repository with its base URL, granularity, deleted-record policy and earliest datestamp', async () => {
    const { oai, publish } = await setUp();
    const first = await publish('records', 'First');
    const { xml } = await oai('verb=Identify');
    const id = xml['Identify'] as Xml;
    expect(id['baseURL']).toBe('http://krs.test/oai2d');
    expect(id['protocolVersion']).toBe('2.0');
    expect(id['adminEmail']).toBe('oai@krs.test');
    expect(id['deletedRecord']).toBe('persistent');
    expect(id['granularity']).toBe('YYYY-MM-DDThh:mm:ssZ');
    expect(id['earliestDatestamp']).toBe(stamp(first.updated));
    expect(id['description']['oai-identifier']['repositoryIdentifier']).toBe('krs.test');
    expect(xml['request']['@verb']).toBe('Identify');
    expect(xml['request']['#text']).toBe('http://krs.test/oai2d');
  });

  it('harvests every public version once by following resumption tokens, in oai_dc, with the identifiers records carry', async () => {
    const { oai, publish } = await setUp(2);
    const published = [];
    for (let i = 0; i < 3; i++) published.push(await publish('records', `Resource ${i}`));
    for (let i = 0; i < 2; i++) published.push(await publish('packages', `Package ${i}`));
    const seen: { identifier: string; title: string; sets: string[] }[] = [];
    let { xml } = await oai('verb=ListRecords&metadataPrefix=oai_dc');
    let pages = 1;
    for (;;) {
      const list = xml['ListRecords'] as Xml;
      for (const r of list['record'] as Xml[]) {
        const dc = r['metadata']['dc'] as Xml;
        seen.push({ identifier: r['header']['identifier'], title: dc['title'][0], sets: r['header']['setSpec'] });
        expect(dc['creator']).toEqual(['Obi, Ada']);
        expect(dc['identifier']).toContain(`http://krs.test/${r['header']['setSpec'].includes('packages') ? 'packages' : 'records'}/${String(r['header']['identifier']).split(':')[2]}`);
      }
      const token = list['resumptionToken'];
      if (typeof token === 'object' && token['#text'] === undefined) {
        // The last page of a resumed list: an empty token with the list's size.
        expect(token['@completeListSize']).toBe('5');
        break;
      }
      ({ xml } = await oai(`verb=ListRecords&resumptionToken=${encodeURIComponent(typeof token === 'object' ? token['#text'] : token)}`));
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.map((s) => s.identifier)).toEqual(published.map((p) => p.pids.oai.identifier));
    expect(seen.map((s) => s.title)).toEqual(published.map((_, i) => (i < 3 ? `Resource ${i}` : `Package ${i - 3}`)));
    expect(seen[0]?.sets).toEqual(['resources', 'resource_type.dataset']);
    expect(seen[4]?.sets).toContain('packages');
  });

  it('resumes a harvest on another instance over the same data: the token holds the position, not server memory', async () => {
    const { oai, publish, core } = await setUp(1);
    await publish('records', 'One');
    await publish('records', 'Two');
    const token = ((await oai('verb=ListIdentifiers&metadataPrefix=oai_dc')).xml['ListIdentifiers'] as Xml)['resumptionToken']['#text'] as string;
    const { createApp } = await import('../src/app.ts');
    const other = createApp(core, { baseUrl: 'http://krs.test', oai: { pageSize: 1 } });
    const text = await (await other.request(`/oai2d?verb=ListIdentifiers&resumptionToken=${token}`)).text();
    const headers = ((parser.parse(text) as Xml)['OAI-PMH']['ListIdentifiers'] as Xml)['header'] as Xml[];
    expect(headers.map((h) => h['identifier'])).toEqual([expect.stringMatching(/^oai:krs\.test:/)]);
    expect(text).toContain('completeListSize="2"');
  });

  it('filters by set and by from/until, and says noRecordsMatch when nothing is left', async () => {
    const { oai, publish, errorOf } = await setUp(10);
    const resource = await publish('records', 'A resource');
    const pkg = await publish('packages', 'A package');
    const ids = async (query: string) => (((await oai(`verb=ListIdentifiers&metadataPrefix=oai_dc&${query}`)).xml['ListIdentifiers'] as Xml)['header'] as Xml[]).map((h) => h['identifier']);
    expect(await ids('set=packages')).toEqual([pkg.pids.oai.identifier]);
    expect(await ids('set=resources')).toEqual([resource.pids.oai.identifier]);
    expect(await ids('from=2026-03-01&until=2026-03-01')).toHaveLength(2);
    expect(await errorOf('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-03-02')).toBe('noRecordsMatch');
    expect(await errorOf('verb=ListIdentifiers&metadataPrefix=oai_dc&until=2026-02-28T23:59:59Z')).toBe('noRecordsMatch');
    expect(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&set=no-such-set')).toBe('noRecordsMatch');
    // A set named like Object's members is no set either, not a set made of Object's constructor.
    for (const set of ['constructor', 'toString', '__proto__']) expect((await oai(`verb=ListRecords&metadataPrefix=oai_dc&set=${set}`)).text).toContain(`This repository has no set "${set}".`);
    const sets = (((await oai('verb=ListSets')).xml['ListSets'] as Xml)['set'] as Xml[]).map((s) => s['setSpec']);
    expect(sets).toEqual(expect.arrayContaining(['resources', 'packages']));
  });

  it('gives each version the OpenAIRE access right of its access status, an embargo its end date, and licenses their URL', async () => {
    const { oai, publish, call, alice } = await setUp(10);
    const dcOf = async (id: string) => {
      const { xml } = await oai(`verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:krs.test:${id}`);
      const dc = ((xml['GetRecord'] as Xml)['record'][0] as Xml)['metadata']['dc'] as Xml;
      return { rights: dc['rights'] as string[], date: ([] as string[]).concat(dc['date'] ?? []) };
    };
    const metadataOnly = await publish('records', 'Metadata only');
    expect((await dcOf(metadataOnly.id)).rights).toEqual(['info:eu-repo/semantics/closedAccess']);
    const embargoed = await publish('records', 'Under embargo', { record: 'public', files: 'public', embargo: { active: true, until: '2099-01-01', reason: null } });
    expect(await dcOf(embargoed.id)).toEqual({ rights: ['info:eu-repo/semantics/embargoedAccess'], date: [metadata.publication_date, 'info:eu-repo/date/embargoEnd/2099-01-01'] });
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Open with a license', rights: [{ id: 'cc-by-4.0' }] }, access: { record: 'public', files: 'restricted' } } });
    const id = draft.json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.txt' }] });
    await call('PUT', `/api/records/${id}/draft/files/a.txt/content`, { token: alice, body: 'a', headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${id}/draft/files/a.txt/commit`, { token: alice });
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    expect((await dcOf(id)).rights).toEqual([
      'Creative Commons Attribution 4.0 International',
      'https://creativecommons.org/licenses/by/4.0/legalcode',
      'info:eu-repo/semantics/restrictedAccess',
    ]);
  });

  it('gives a version that became restricted as deleted, at the datestamp of that change, without metadata', async () => {
    const { oai, publish, call, alice, clock } = await setUp(10);
    const open = await publish('records', 'Open for now');
    clock.advance(3600_000);
    await call('POST', `/api/records/${open.id}/draft`, { token: alice });
    await call('PUT', `/api/records/${open.id}/draft`, { token: alice, json: { metadata: { ...metadata, title: 'Open for now' }, access: { record: 'restricted', files: 'restricted' } } });
    const republished = await call('POST', `/api/records/${open.id}/draft/actions/publish`, { token: alice });
    expect(republished.status).toBe(202);
    const { xml } = await oai(`verb=GetRecord&metadataPrefix=oai_dc&identifier=${open.pids.oai.identifier}`);
    const record = (xml['GetRecord'] as Xml)['record'][0] as Xml;
    expect(record['header']['@status']).toBe('deleted');
    expect(record['header']['datestamp']).toBe(stamp(String(republished.json.updated)));
    expect(record['metadata']).toBeUndefined();
    // An incremental harvest from after the first publication sees the deletion.
    const list = (await oai('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-01T10:30:00Z')).xml['ListRecords'] as Xml;
    expect((list['record'] as Xml[]).map((r) => r['header']['@status'])).toEqual(['deleted']);
  });

  it('answers every protocol error with its code, echoing arguments only when they were valid', async () => {
    const { oai, publish, errorOf } = await setUp();
    const rec = await publish('records', 'Only one');
    expect(await errorOf('')).toBe('badVerb');
    expect(await errorOf('verb=Dance')).toBe('badVerb');
    expect(await errorOf('verb=Identify&verb=Identify')).toBe('badVerb');
    expect(await errorOf('verb=Identify&extra=1')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-13-01')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-01&until=2026-03-02T00:00:00Z')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-02&until=2026-03-01')).toBe('badArgument');
    expect(await errorOf('verb=ListRecords&metadataPrefix=marc21')).toBe('cannotDisseminateFormat');
    expect(await errorOf(`verb=GetRecord&metadataPrefix=marc21&identifier=${rec.pids.oai.identifier}`)).toBe('cannotDisseminateFormat');
    expect(await errorOf('verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:krs.test:nope')).toBe('idDoesNotExist');
    expect(await errorOf('verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:elsewhere.org:x')).toBe('idDoesNotExist');
    expect(await errorOf('verb=ListMetadataFormats&identifier=oai:krs.test:nope')).toBe('idDoesNotExist');
    expect(await errorOf('verb=ListRecords&resumptionToken=not-a-token')).toBe('badResumptionToken');
    expect(await errorOf('verb=ListRecords&resumptionToken=abc&metadataPrefix=oai_dc')).toBe('badArgument');
    expect(await errorOf('verb=ListSets&resumptionToken=abc')).toBe('badResumptionToken');
    const bad = (await oai('verb=Dance')).xml;
    expect(bad['request']).toBe('http://krs.test/oai2d');
    const badArg = (await oai('verb=ListRecords&metadataPrefix=oai_dc&from=yesterday')).xml;
    expect(badArg['request']).toBe('http://krs.test/oai2d');
    const unknown = (await oai('verb=ListRecords&metadataPrefix=marc21')).xml;
    expect(unknown['request']['@metadataPrefix']).toBe('marc21');
    // Control characters never make the document ill-formed.
    expect((await oai('verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:krs.test:%01%02')).text).toContain('idDoesNotExist');
  });

  it('takes the same requests as form POSTs, and refuses other bodies with badArgument', async () => {
    const { oai, publish } = await setUp();
    const rec = await publish('records', 'Posted');
    const posted = await oai('', { method: 'POST', body: `verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(rec.pids.oai.identifier)}` });
    expect((posted.xml['GetRecord'] as Xml)['record'][0]['metadata']['dc']['title']).toEqual(['Posted']);
    const json = await oai('', { method: 'POST', body: '{"verb":"Identify"}', type: 'application/json' });
    expect((json.xml['error'] as Xml[])[0]?.['@code']).toBe('badArgument');
    const huge = await oai('', { method: 'POST', body: `verb=Identify&x=${'a'.repeat(20_000)}` });
    expect((huge.xml['error'] as Xml[])[0]?.['@code']).toBe('badArgument');
  });
});
