/** One flow any core must support: a user drafts a resource, publishes it, and finds it by search. */
import type { Core } from '@krs/domain';

const metadata = {
  title: 'Flood extent maps of the Niger delta',
  publication_date: '2025-03-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
};

export async function draftPublishSearch(core: Core): Promise<{ id: string; found: string[] }> {
  const user = await core.users.create('ada@example.org');
  const ada = { userId: user.id, linkIds: [] };
  const draft = await core.records.createDraft(ada, 'resource', { metadata, files: { enabled: false } });
  const published = await core.records.publish(ada, 'resource', draft.record.id);
  const page = await core.records.search({ userId: null, linkIds: [] }, ['resource'], { q: 'flood niger' });
  return { id: published.record.id, found: page.hits.map((hit) => hit.record.id) };
}
