import { describe, expect, it } from 'vitest';
import { TavernApi } from './api';
import {
  answeringModel,
  checkPersona,
  checkReport,
  parseChatModel,
  parsePersona,
  parsePreviewItem,
  parsePrompts,
  personaChange,
  PERSONA_MAX,
  PERSONA_NAME_MAX,
  REPORT_DETAIL_MAX,
  REPORT_REASONS,
  splitPreview,
  userNameShown,
} from './extras';

describe('reports', () => {
  it('has the server reasons, in order', () => {
    expect(REPORT_REASONS).toEqual(['sexual_minors', 'hate', 'violence', 'spam', 'impersonation', 'other']);
  });
  it('checks the detail as the server does', () => {
    expect(checkReport('hate', '')).toBeNull();
    expect(checkReport('other', '   ')).toBe('detailNeeded');
    expect(checkReport('other', ' ads ')).toBeNull();
    expect(checkReport('spam', 'é'.repeat(REPORT_DETAIL_MAX))).toBeNull();
    expect(checkReport('spam', `${'é'.repeat(REPORT_DETAIL_MAX)}x`)).toBe('detailTooLong');
    // Counted after trimming, in characters (not UTF-16 units).
    expect(checkReport('spam', ` ${'😀'.repeat(REPORT_DETAIL_MAX)} `)).toBeNull();
    expect(checkReport('spam', 'a\u0007b')).toBe('detailInvalid');
    expect(checkReport('spam', 'line one\nline two\tend')).toBeNull();
  });
});

describe('the chat persona', () => {
  it('decodes the answer tolerantly', () => {
    expect(parsePersona({ display_name: 'Cap', persona: 'A sailor.', user_name: 'Cap' })).toEqual({ display_name: 'Cap', persona: 'A sailor.', user_name: 'Cap' });
    expect(parsePersona(null)).toEqual({ display_name: '', persona: '', user_name: '' });
    expect(parsePersona({ display_name: 'Cap' }).user_name).toBe('Cap');
  });
  it('checks name and persona as the server does', () => {
    expect(checkPersona('  Captain  ', ' a\nb ')).toBeNull();
    expect(checkPersona('', '')).toBeNull();
    expect(checkPersona('n'.repeat(PERSONA_NAME_MAX), '')).toBeNull();
    expect(checkPersona('n'.repeat(PERSONA_NAME_MAX + 1), '')).toBe('nameTooLong');
    expect(checkPersona('two\nlines', '')).toBe('nameOneLine');
    expect(checkPersona('tab\there', '')).toBe('nameOneLine');
    expect(checkPersona('', 'p'.repeat(PERSONA_MAX))).toBeNull();
    expect(checkPersona('', 'p'.repeat(PERSONA_MAX + 1))).toBe('personaTooLong');
    expect(checkPersona('', 'bell\u0007')).toBe('personaInvalid');
  });
  it('says what {{user}} becomes', () => {
    const none = { display_name: '', persona: '', user_name: 'Mira' };
    const named = { display_name: 'Cap', persona: '', user_name: 'Cap' };
    expect(userNameShown('  Wren ', none, 'Account')).toBe('Wren');
    expect(userNameShown('', none, 'Account')).toBe('Mira');
    // The stored answer names the display name: clearing it falls back to the account's name.
    expect(userNameShown('', named, 'Mira')).toBe('Mira');
    expect(userNameShown('', null, 'Mira')).toBe('Mira');
  });
  it('sends only what changed', () => {
    const stored = { display_name: 'Cap', persona: 'A sailor.', user_name: 'Cap' };
    expect(personaChange(stored, ' Cap ', 'A sailor.\n')).toBeNull();
    expect(personaChange(stored, '', 'A sailor.')).toEqual({ display_name: '' });
    expect(personaChange(stored, 'Cap', 'A pilot.')).toEqual({ persona: 'A pilot.' });
    expect(personaChange(null, 'Cap', '')).toEqual({ display_name: 'Cap', persona: '' });
  });
});

describe('preview, picture prompts and the model', () => {
  it('decodes preview lines and splits them', () => {
    const items = [
      { role: 'system', content: 'A harbour.', kind: 'scenario' },
      { role: 'assistant', content: 'Ahoy!', kind: 'greeting' },
      { role: 'user', content: 'Any stories?', kind: 'example' },
      { role: 'assistant', content: 'Plenty.', kind: 'example' },
      { role: 'narrator', content: 'x', kind: 'example' },
      { role: 'user', content: '  ', kind: 'example' },
    ]
      .map(parsePreviewItem)
      .filter((x) => x !== null);
    expect(items).toHaveLength(4);
    const parts = splitPreview(items);
    expect(parts.scenario.map((i) => i.content)).toEqual(['A harbour.']);
    expect(parts.greeting.map((i) => i.content)).toEqual(['Ahoy!']);
    expect(parts.example.map((i) => i.role)).toEqual(['user', 'assistant']);
  });
  it('keeps at most three distinct prompts', () => {
    expect(parsePrompts(['a', ' a ', '', 7, 'b', 'c', 'd'])).toEqual(['a', 'b', 'c']);
  });
  it('picks the default model', () => {
    const a = parseChatModel({ name: 'a', label: 'A', neural: true, context_tokens: 2048, default: false });
    const b = parseChatModel({ name: 'b', label: '', neural: false, default: true });
    expect(b).toEqual({ name: 'b', label: 'b', neural: false, context_tokens: 0, default: true });
    expect(parseChatModel({ label: '' })).toBeNull();
    expect(answeringModel([a, b].filter((x) => x !== null))?.name).toBe('b');
    expect(answeringModel(a ? [a] : [])?.label).toBe('A');
    expect(answeringModel([])).toBeNull();
  });
});

describe('the side calls', () => {
  it('send the exact bodies of character_extras.rs', async () => {
    const calls: { path: string; body: unknown }[] = [];
    const answers: Record<string, unknown> = {
      '/api/v1/report/ai-character': { updated: true },
      '/api/v1/account/character/setting/get': { display_name: '', persona: '', user_name: 'Mira' },
      '/api/v1/account/character/setting/update': { display_name: 'Cap', persona: '', user_name: 'Cap' },
      '/api/v1/tavern-pro/preview/list': { items: [{ role: 'assistant', content: 'Hi Mira', kind: 'greeting' }] },
      '/api/v1/character/agent/recommend_promot': { items: ['p1', 'p2'] },
      '/api/v1/character/model_list': { items: [{ name: 'm', label: 'M', neural: true, context_tokens: 8192, default: true }] },
    };
    const tavern = new TavernApi({
      post<T>(path: string, body?: unknown): Promise<T> {
        calls.push({ path, body });
        return Promise.resolve(answers[path] as T);
      },
    } as never);
    expect(await tavern.report('c', 'other', '  ads  ')).toBe(true);
    expect((await tavern.persona()).user_name).toBe('Mira');
    expect((await tavern.updatePersona({ display_name: 'Cap' })).user_name).toBe('Cap');
    expect(await tavern.preview({ name: ' Wren ', greeting: 'Hi {{user}}', persona: 'p', scenario: '', example_dialogue: '' })).toEqual([
      { role: 'assistant', content: 'Hi Mira', kind: 'greeting' },
    ]);
    expect(await tavern.imagePrompts('c')).toEqual(['p1', 'p2']);
    expect((await tavern.models())[0]?.label).toBe('M');
    expect(calls).toEqual([
      { path: '/api/v1/report/ai-character', body: { character_id: 'c', reason: 'other', detail: 'ads' } },
      { path: '/api/v1/account/character/setting/get', body: {} },
      { path: '/api/v1/account/character/setting/update', body: { display_name: 'Cap' } },
      { path: '/api/v1/tavern-pro/preview/list', body: { name: 'Wren', greeting: 'Hi {{user}}', persona: 'p', scenario: '', example_dialogue: '' } },
      { path: '/api/v1/character/agent/recommend_promot', body: { character_id: 'c' } },
      { path: '/api/v1/character/model_list', body: {} },
    ]);
  });
});
