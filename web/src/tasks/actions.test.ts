import { describe, expect, it } from 'vitest';
import { ACTION_LABELS, ACTION_TABLE, DISABLED_ACTIONS, grantedPermissions, visibleActions } from './actions';
import { en } from '../i18n/en';

describe('the action bar gating table', () => {
  it('lists every spec 2 §2 button once, each with its §6 key', () => {
    expect(ACTION_TABLE).toHaveLength(24);
    expect(new Set(ACTION_TABLE.map((a) => a.button)).size).toBe(24);
    expect(new Set(ACTION_TABLE.map((a) => a.permission)).size).toBe(24);
    for (const def of ACTION_TABLE) expect(en[ACTION_LABELS[def.button]]).toBeTruthy();
  });

  it('shows an account the image actions Easel performs, grouped', () => {
    expect(visibleActions(grantedPermissions(true))).toEqual({
      edit: ['upscale', 'variations', 'extraUpscale', 'removeBackground', 'expandImage'],
      more: ['post', 'save', 'download', 'deleteSingleImg', 'Share'],
    });
  });

  it('shows an account the video tools and "Post" on a video, without audio (add music, lip sync)', () => {
    expect(visibleActions(grantedPermissions(true), 'video')).toEqual({
      edit: ['videoExtension', 'videoUpscale', 'videoExtendFrame'],
      more: ['post'],
    });
    expect(visibleActions(new Set(['supportPublish', 'supportSave']), 'video')).toEqual({ edit: [], more: ['post'] });
    expect(visibleActions(new Set(['videoUpscale']), 'video')).toEqual({ edit: ['videoUpscale'], more: [] });
    expect(visibleActions(new Set(['audioToVideo', 'lipSyncVideo', 'videoUpscale']), 'video').edit).toEqual(['videoUpscale', 'addMusic', 'lipsync']);
    expect(visibleActions(grantedPermissions(false), 'video')).toEqual({ edit: [], more: [] });
  });

  it('shows a visitor only what needs no account', () => {
    expect(visibleActions(grantedPermissions(false))).toEqual({
      edit: [],
      more: ['download', 'deleteSingleImg', 'Share'],
    });
  });

  it('hides a button whose key is not granted', () => {
    expect(visibleActions(new Set(['upscale']))).toEqual({ edit: ['upscale'], more: [] });
    expect(visibleActions(new Set())).toEqual({ edit: [], more: [] });
  });

  it('post is usable: it opens the publish dialog', () => {
    expect(DISABLED_ACTIONS.post).toBeUndefined();
    expect(en['tasks.action.post']).toBe('Post');
  });
});
