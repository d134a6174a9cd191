/**
 * OAI-PMH 2.0 at `/oai2d`, InvenioRDM's path: the six verbs over GET and POST, answered in XML
 * with status 200 (protocol errors are `<error>` elements, as the protocol wants). Identifiers
 * are the `pids.oai` of published versions (`oai:<host>:<id>`). Only public versions carry
 * metadata; restricted ones are given as deleted (`deletedRecord` is `persistent`).
 */
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { create, fragment } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { AnswerMemory, Core, HarvestItem, HarvestSet, RecordView } from '@krs/domain';
import { answerOf } from '../answer-memory.ts';
import { xmlElementsInTurns, type XmlNode } from '../exports/xml.ts';
import type { Links } from '../links.ts';
import { dateRange, datestamp, OaiError, parseRequest, type OaiRequest } from '../oai/arguments.ts';
import { OAI_DC, oaiDcXmlInTurns } from '../oai/oai-dc.ts';
import { MARCXML_FORMAT } from '../oai/oai-marcxml.ts';
import { DATACITE_FORMAT, OAI_DATACITE_FORMAT } from '../oai/oai-datacite.ts';
import { decodeToken, encodeToken, type ListState } from '../oai/resumption-token.ts';
import type { Env } from './request.ts';
import { nextIteration, timeSlices } from '@krs/domain';
import type { Responder } from '../respond.ts';

const OAI = 'http://www.openarchives.org/OAI/2.0/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
/** Form bodies longer than this are not OAI requests (every argument together fits in far less). */
const MAX_FORM_BYTES = 16 * 1024;

export interface MetadataFormat {
  prefix: string;
  schema: string;
  namespace: string;
  /** The `<metadata>` element's content, for the XML writer (exports/xml.ts); made in turns when large. */
  payload(view: RecordView, links: Links): XmlNode | Promise<XmlNode>;
}

export interface OaiOptions {
  /** Items per ListIdentifiers / ListRecords page. */
  pageSize?: number;
  repositoryName?: string;
  adminEmail?: string;
  formats?: MetadataFormat[];
}

/** A record's metadata still to write, and the comment that holds its place in the envelope. */
interface Payload {
  marker: string;
  make(): XmlNode | Promise<XmlNode>;
}

/** Makes the markers unguessable: record text is escaped and cannot hold `<!--` anyway. */
const payloadNonce = randomBytes(6).toString('hex');

/** The envelope with each marker replaced by its metadata, written a record at a time in turns. */
async function withPayloads(envelope: string, payloads: readonly Payload[]): Promise<string> {
  if (payloads.length === 0) return envelope;
  const pieces: string[] = [];
  let rest = envelope;
  for (const payload of payloads) {
    const at = rest.indexOf(payload.marker);
    if (at < 0) continue;
    pieces.push(rest.slice(0, at));
    await nextIteration();
    const metadata = await payload.make();
    await nextIteration();
    pieces.push(await xmlElementsInTurns(metadata, nextIteration));
    rest = rest.slice(at + payload.marker.length);
  }
  pieces.push(rest);
  return pieces.join('');
}

const SET_KINDS: Record<string, HarvestSet> = { resources: { kind: 'resource' }, packages: { kind: 'package' } };
const TYPE_SET = 'resource_type.';
/** setSpec's allowed characters (the protocol's `unreserved` of RFC 2396). */
const SPEC_CHARS = /^[A-Za-z0-9\-_.!~*'()]+$/;

const specOf = (set: HarvestSet): string | null =>
  'kind' in set ? (set.kind === 'resource' ? 'resources' : 'packages') : SPEC_CHARS.test(set.resourceType) ? `${TYPE_SET}${set.resourceType}` : null;

/** The set a setSpec names, or null for one this repository does not have. */
function setOf(spec: string): HarvestSet | null {
  if (Object.hasOwn(SET_KINDS, spec)) return SET_KINDS[spec] as HarvestSet;
  return spec.startsWith(TYPE_SET) && spec.length > TYPE_SET.length ? { resourceType: spec.slice(TYPE_SET.length) } : null;
}

export function oaiRoutes(core: Core, links: Links, responder: Responder, options: OaiOptions = {}) {
  const host = new URL(links.oai).hostname;
  const pageSize = options.pageSize ?? 100;
  const formats = options.formats ?? [{ ...OAI_DC, payload: (view: RecordView, l: Links) => oaiDcXmlInTurns(view, l, nextIteration) }, OAI_DATACITE_FORMAT, DATACITE_FORMAT, MARCXML_FORMAT];
  const formatOf = (prefix: string) => {
    const format = formats.find((f) => f.prefix === prefix);
    if (format === undefined) throw new OaiError('cannotDisseminateFormat', `This repository does not offer the metadata format "${prefix.slice(0, 100)}".`);
    return format;
  };
  const idOf = (identifier: string) => {
    const prefix = `oai:${host}:`;
    if (!identifier.startsWith(prefix) || identifier.length === prefix.length) throw new OaiError('idDoesNotExist', `"${identifier.slice(0, 200)}" is not an identifier of this repository.`);
    // No id holds U+0000; PostgreSQL would refuse to look one up (a 404 instead of OAI's error).
    if (identifier.includes('\u0000')) throw new OaiError('idDoesNotExist', 'No record has an identifier holding a NUL character (U+0000).');
    return identifier.slice(prefix.length);
  };

  function header(parent: XMLBuilder, item: HarvestItem): void {
    const h = parent.ele(OAI, 'header');
    if (item.view === null) h.att('status', 'deleted');
    h.ele(OAI, 'identifier').txt(`oai:${host}:${item.id}`);
    h.ele(OAI, 'datestamp').txt(datestamp(item.updated));
    for (const set of item.sets) {
      const spec = specOf(set);
      if (spec !== null) h.ele(OAI, 'setSpec').txt(spec);
    }
  }

  /**
   * A record's metadata is left as a marker in the envelope and written afterwards, in turns
   * (`withPayloads`): the largest record a client may store is about 50,000 elements, and given
   * to xmlbuilder2 it held the event loop for seconds (oai_datacite of 20,000 creators: 2.2 s).
   */
  function record(parent: XMLBuilder, item: HarvestItem, format: MetadataFormat, payloads: Payload[]): void {
    const r = parent.ele(OAI, 'record');
    header(r, item);
    if (item.view === null) return;
    const view = item.view;
    const marker = `krs-payload-${payloads.length}-${payloadNonce}`;
    r.ele(OAI, 'metadata').com(marker);
    payloads.push({ marker: `<!--${marker}-->`, make: () => format.payload(view, links) });
  }

  async function answer(body: XMLBuilder, request: OaiRequest, payloads: Payload[], memory: AnswerMemory | undefined): Promise<void> {
    const { verb, args } = request;
    if (verb === 'Identify') {
      const earliest = await core.harvest.earliest();
      const identify = body.ele(OAI, 'Identify');
      identify.ele(OAI, 'repositoryName').txt(options.repositoryName ?? 'Knowledge Records Service');
      identify.ele(OAI, 'baseURL').txt(links.oai);
      identify.ele(OAI, 'protocolVersion').txt('2.0');
      identify.ele(OAI, 'adminEmail').txt(options.adminEmail ?? `admin@${host}`);
      identify.ele(OAI, 'earliestDatestamp').txt(datestamp(earliest ?? new Date().toISOString()));
      identify.ele(OAI, 'deletedRecord').txt('persistent');
      identify.ele(OAI, 'granularity').txt('YYYY-MM-DDThh:mm:ssZ');
      const ns = 'http://www.openarchives.org/OAI/2.0/oai-identifier';
      const description = identify.ele(OAI, 'description').ele(ns, 'oai-identifier');
      description.att(XSI, 'xsi:schemaLocation', `${ns} http://www.openarchives.org/OAI/2.0/oai-identifier.xsd`);
      description.ele(ns, 'scheme').txt('oai');
      description.ele(ns, 'repositoryIdentifier').txt(host);
      description.ele(ns, 'delimiter').txt(':');
      description.ele(ns, 'sampleIdentifier').txt(`oai:${host}:abcde-12345`);
      return;
    }
    if (verb === 'ListMetadataFormats') {
      if (args['identifier'] !== undefined && (await core.harvest.get(idOf(args['identifier']))) === null) {
        throw new OaiError('idDoesNotExist', `No record has the identifier "${args['identifier'].slice(0, 200)}".`);
      }
      const list = body.ele(OAI, 'ListMetadataFormats');
      for (const f of formats) {
        const el = list.ele(OAI, 'metadataFormat');
        el.ele(OAI, 'metadataPrefix').txt(f.prefix);
        el.ele(OAI, 'schema').txt(f.schema);
        el.ele(OAI, 'metadataNamespace').txt(f.namespace);
      }
      return;
    }
    if (verb === 'ListSets') {
      if (args['resumptionToken'] !== undefined) throw new OaiError('badResumptionToken', 'ListSets answers in one response; there is nothing to resume.');
      const list = body.ele(OAI, 'ListSets');
      const addSet = (spec: string, name: string) => {
        const el = list.ele(OAI, 'set');
        el.ele(OAI, 'setSpec').txt(spec);
        el.ele(OAI, 'setName').txt(name);
      };
      addSet('resources', 'Knowledge Resources');
      addSet('packages', 'Knowledge Packages');
      for (const type of await core.vocabularies.list('resource_types')) {
        const spec = specOf({ resourceType: type.id });
        if (spec !== null) addSet(spec, `Resource type: ${type.title['en'] ?? type.id}`);
      }
      return;
    }
    if (verb === 'GetRecord') {
      const format = formatOf(args['metadataPrefix'] as string);
      const item = await core.harvest.get(idOf(args['identifier'] as string), memory);
      if (item === null) throw new OaiError('idDoesNotExist', `No record has the identifier "${(args['identifier'] as string).slice(0, 200)}".`);
      record(body.ele(OAI, 'GetRecord'), item, format, payloads);
      return;
    }
    // ListIdentifiers, ListRecords
    const token = args['resumptionToken'];
    let state: Omit<ListState, 'after'> & { after?: ListState['after'] };
    if (token !== undefined) {
      state = decodeToken(token);
    } else {
      const range = dateRange(args);
      state = { metadataPrefix: args['metadataPrefix'] as string, ...range, ...(args['set'] !== undefined ? { set: args['set'] } : {}), cursor: 0 };
    }
    const format = formatOf(state.metadataPrefix);
    const set = state.set === undefined ? undefined : setOf(state.set);
    // An unknown set holds nothing: the protocol's answer is noRecordsMatch.
    if (set === null) throw new OaiError('noRecordsMatch', `This repository has no set "${(state.set ?? '').slice(0, 100)}".`);
    const page = await core.harvest.list({
      ...(state.from !== undefined ? { from: state.from } : {}),
      ...(state.until !== undefined ? { until: state.until } : {}),
      ...(set !== undefined ? { set } : {}),
      ...(state.after !== undefined ? { after: state.after } : {}),
      limit: pageSize,
      ...(memory ? { memory } : {}),
    });
    if (page.items.length === 0) {
      if (token !== undefined) throw new OaiError('badResumptionToken', 'The resumption token points past the end of the list.');
      throw new OaiError('noRecordsMatch', 'No record matches the arguments.');
    }
    const list = body.ele(OAI, verb);
    // A page's headers are a hundred records' elements: a turn when a slice is due.
    const slicing = timeSlices(nextIteration);
    for (const item of page.items) {
      if (slicing.due()) await slicing.turn();
      if (verb === 'ListRecords') record(list, item, format, payloads);
      else header(list, item);
    }
    if (page.next !== null) {
      const next = encodeToken({ ...state, after: page.next, cursor: state.cursor + page.items.length });
      list.ele(OAI, 'resumptionToken').att('cursor', String(state.cursor)).txt(next);
    } else if (token !== undefined) {
      // The last page of a resumed list says so with an empty token.
      list.ele(OAI, 'resumptionToken').att('cursor', String(state.cursor)).att('completeListSize', String(state.cursor + page.items.length));
    }
  }

  /** `input`: the arguments as sent, or a refusal decided before they could be read. */
  async function respond(c: Context<Env>, input: [string, string][] | OaiError): Promise<Response> {
    const options = { invalidCharReplacement: '\ufffd' };
    const payloads: Payload[] = [];
    const doc = create({ version: '1.0', encoding: 'UTF-8', ...options });
    const root = doc.ele(OAI, 'OAI-PMH').att(XSI, 'xsi:schemaLocation', `${OAI} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd`);
    root.ele(OAI, 'responseDate').txt(datestamp(new Date().toISOString()));
    const requestEl = root.ele(OAI, 'request');
    // The request element echoes the arguments only when the verb and they are valid (section 3.2).
    const echo = (request: OaiRequest) => {
      requestEl.att('verb', request.verb);
      for (const [k, v] of Object.entries(request.args)) requestEl.att(k, v);
    };
    try {
      if (input instanceof OaiError) throw input;
      const request = parseRequest(input);
      const body = fragment(options);
      try {
        await answer(body, request, payloads, answerOf(c));
      } catch (e) {
        if (e instanceof OaiError && e.code !== 'badArgument') echo(request);
        throw e;
      }
      echo(request);
      // A page's elements are copied into the answer, then written: each a block of milliseconds for a hundred records, each in a turn of its own.
      await nextIteration();
      root.import(body);
      await nextIteration();
    } catch (e) {
      if (!(e instanceof OaiError)) throw e;
      root.ele(OAI, 'error').att('code', e.code).txt(e.message);
    }
    requestEl.txt(links.oai);
    // A page of large records is megabytes: its bytes are made in turns, as a large API answer's are.
    return responder.text(c, await withPayloads(doc.end({ prettyPrint: false }), payloads), 200, { 'Content-Type': 'text/xml; charset=utf-8' });
  }

  return new Hono<Env>()
    .get('/oai2d', (c) => respond(c, [...new URL(c.req.url).searchParams.entries()]))
    .post('/oai2d', async (c) => {
      const type = c.req.header('content-type') ?? '';
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        return respond(c, new OaiError('badArgument', 'A POST request carries its arguments as application/x-www-form-urlencoded.'));
      }
      const tooLong = new OaiError('badArgument', `The arguments are longer than ${MAX_FORM_BYTES} bytes.`);
      if (Number(c.req.header('content-length') ?? 0) > MAX_FORM_BYTES) return respond(c, tooLong);
      const text = await readLimited(c.req.raw, MAX_FORM_BYTES);
      return respond(c, text === null ? tooLong : [...new URLSearchParams(text).entries()]);
    });
}

/** The body as text, or null past `limit` bytes (read no further). */
async function readLimited(request: Request, limit: number): Promise<string | null> {
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
