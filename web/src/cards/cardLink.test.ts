import { describe, expect, it } from 'vitest';
import { cardFlags, cardHref, cardLink, specialLink, type ContentCardItem } from './cardLink';

const item = (obj_type: number, id: string | number, extra: Partial<ContentCardItem> = {}): ContentCardItem => ({ obj_type, id, ...extra });

describe('cardLink: one test per row of spec 1 §2', () => {
  it.each([
    [1, '/explore/detail/a1'],
    [2, '/models/detail/a1'],
    [5, '/video/a1'],
    [9, '/cyberPubPage/a1'],
    [11, '/editBoard/detail/a1'],
    [14, '/workFlowAppDetail/a1'],
    [15, '/ai-video/detail/a1'],
    [16, '/ai-audio/detail/a1'],
    [60, '/ai-tools/a1'],
  ])('obj_type %i -> %s', (objType, path) => {
    expect(cardLink(item(objType, 'a1'))).toEqual({ kind: 'path', path });
  });

  it('60 with id ai-headshot-generator goes to /ai-headshot-generator', () => {
    expect(cardLink(item(60, 'ai-headshot-generator'))).toEqual({ kind: 'path', path: '/ai-headshot-generator' });
  });

  it('61 goes through the special link handler', () => {
    expect(cardLink(item(61, 'event-center/daily/12'))).toEqual({ kind: 'path', path: '/event-center/daily/12' });
    expect(cardLink(item(61, 'https://example.com/x'))).toEqual({ kind: 'external', url: 'https://example.com/x' });
    expect(specialLink('../../etc')).toEqual({ kind: 'path', path: '/' });
    expect(specialLink('')).toEqual({ kind: 'path', path: '/' });
  });

  it('4: an article goes to /articleDetail/{id}', () => {
    expect(cardLink(item(4, 7, { content_sub_type: 'article' }))).toEqual({ kind: 'path', path: '/articleDetail/7' });
  });

  it.each(['picture', 'video', null])('4: a %s post goes to /artWorkDetail/{id}', (kind) => {
    expect(cardLink(item(4, 7, { content_sub_type: kind }))).toEqual({ kind: 'path', path: '/artWorkDetail/7' });
  });

  it('AI apps (13 with sub type 3 or 4) go to /workFlowAppDetail/{id}', () => {
    expect(cardLink(item(13, 'x', { sub_obj_type: 3 }))).toEqual({ kind: 'path', path: '/workFlowAppDetail/x' });
    expect(cardLink(item(13, 'x', { sub_obj_type: 4 }))).toEqual({ kind: 'path', path: '/workFlowAppDetail/x' });
  });

  it('workflows (13 with sub type 1 or 2) go to /workFlowDetail/{id}', () => {
    expect(cardLink(item(13, 'x', { sub_obj_type: 1 }))).toEqual({ kind: 'path', path: '/workFlowDetail/x' });
    expect(cardLink(item(13, 'x', { sub_obj_type: 2 }))).toEqual({ kind: 'path', path: '/workFlowDetail/x' });
  });

  it('an account card (obj_type 100) goes to its profile', () => {
    expect(cardLink({ obj_type: 100, id: 'a b' })).toEqual({ kind: 'path', path: '/user/a%20b' });
  });

  it('a tag card (obj_type 101) goes to the square narrowed to the tag', () => {
    expect(cardLink({ obj_type: 101, id: 'sea side' })).toEqual({ kind: 'path', path: '/?tag=sea+side' });
    expect(cardHref({ obj_type: 101, id: 'a&b' }, 'en')).toBe('/en/?tag=a%26b');
  });

  it.each([0, 3, 7, 12, 99])('other obj_type %i goes home', (objType) => {
    expect(cardLink(item(objType, 'x'))).toEqual({ kind: 'path', path: '/' });
    expect(cardLink(item(13, 'x', { sub_obj_type: 9 }))).toEqual({ kind: 'path', path: '/' });
  });

  it('escapes ids and adds the locale', () => {
    expect(cardHref(item(1, 'a/b c'), 'ja')).toBe('/ja/explore/detail/a%2Fb%20c');
    expect(cardHref(item(61, 'https://example.com/'), 'ja')).toBe('https://example.com/');
  });
});

describe('derived flags (spec 1 §3)', () => {
  const none = { model: false, loraTraining: false, aiApp: false, workflow: false, video: false, gif: false, dailyChallenge: false, activityMark: false };

  it('model and LoRA training', () => {
    expect(cardFlags(item(2, 1))).toEqual({ ...none, model: true });
    expect(cardFlags(item(2, 1, { channel: 1 }))).toEqual({ ...none, model: true, loraTraining: true });
  });

  it('AI app and workflow', () => {
    expect(cardFlags(item(14, 1)).aiApp).toBe(true);
    expect(cardFlags(item(13, 1, { sub_obj_type: 4 }))).toEqual({ ...none, aiApp: true });
    expect(cardFlags(item(13, 1, { sub_obj_type: 1 }))).toEqual({ ...none, workflow: true });
  });

  it('video and gif', () => {
    expect(cardFlags(item(5, 1)).video).toBe(true);
    expect(cardFlags(item(1, 1, { stream: { url: 'https://cdn/x/clip.MP4?sig=1' } })).video).toBe(true);
    expect(cardFlags(item(1, 1, { stream: { url: 'https://cdn/x.mp4/still.png' } })).video).toBe(false);
    expect(cardFlags(item(1, 1, { cover: { url: '/files/a.gif' } }))).toEqual({ ...none, gif: true });
  });

  it('daily challenge and the task/activity mark', () => {
    expect(cardFlags(item(1, 'x/event-center/daily/3')).dailyChallenge).toBe(true);
    expect(cardFlags(item(61, 'event-center/daily/3'))).toEqual({ ...none, dailyChallenge: true, activityMark: true });
    expect(cardFlags(item(61, 'event-center/tasks')).activityMark).toBe(false);
    expect(cardFlags(item(1, 'event-center/a/b')).activityMark).toBe(false);
  });
});
