// The result action bar's table (spec 2 §2 buttons, §6 permission keys):
// every button of the spec with the permission key that gates it and its
// group. Easel grants the keys of the actions it can perform; a button whose
// key is not granted is not shown.
import type { MessageKey } from '../i18n/messages';

/** Permission keys of spec 2 §6. */
export type PermissionKey =
  | 'upscale'
  | 'variation'
  | 'extraUpscale'
  | 'smartEdit'
  | 'videoExtend'
  | 'img2video'
  | 'playaroundPopup'
  | 'digitalHumanChat'
  | 'videoUpscale'
  | 'supportPublish'
  | 'removeBackground'
  | 'supportSave'
  | 'supportDownload'
  | 'audioToVideo'
  | 'lipSyncVideo'
  | '3d'
  | 'videoExtendFrame'
  | 'supportFeedback'
  | 'supportReport'
  | 'supportDelete'
  | 'supportShare'
  | 'imageSmartErase'
  | 'imagePartialRepainting'
  | 'imageSmartExpand';

/** Buttons of spec 2 §2. */
export type ActionButton =
  | 'upscale'
  | 'variations'
  | 'extraUpscale'
  | 'imageEditing'
  | 'videoExtension'
  | 'aiGenerateVideo'
  | 'playNow'
  | 'chat'
  | 'videoUpscale'
  | 'post'
  | 'removeBackground'
  | 'save'
  | 'download'
  | 'addMusic'
  | 'lipsync'
  | '3D'
  | 'videoExtendFrame'
  | 'feedback'
  | 'report'
  | 'deleteSingleImg'
  | 'Share'
  | 'aiErase'
  | 'partialRedrawing'
  | 'expandImage';

export type ActionGroup = 'edit' | 'more';

export interface ActionDef {
  button: ActionButton;
  permission: PermissionKey;
  /** Edit actions make a new image; the rest sit in the "more" menu. */
  group: ActionGroup;
}

/** Spec 2 §2 / §6, in the spec's order. */
export const ACTION_TABLE: readonly ActionDef[] = [
  { button: 'upscale', permission: 'upscale', group: 'edit' },
  { button: 'variations', permission: 'variation', group: 'edit' },
  { button: 'extraUpscale', permission: 'extraUpscale', group: 'edit' },
  { button: 'imageEditing', permission: 'smartEdit', group: 'edit' },
  { button: 'videoExtension', permission: 'videoExtend', group: 'edit' },
  { button: 'aiGenerateVideo', permission: 'img2video', group: 'edit' },
  { button: 'playNow', permission: 'playaroundPopup', group: 'more' },
  { button: 'chat', permission: 'digitalHumanChat', group: 'more' },
  { button: 'videoUpscale', permission: 'videoUpscale', group: 'edit' },
  { button: 'post', permission: 'supportPublish', group: 'more' },
  { button: 'removeBackground', permission: 'removeBackground', group: 'edit' },
  { button: 'save', permission: 'supportSave', group: 'more' },
  { button: 'download', permission: 'supportDownload', group: 'more' },
  { button: 'addMusic', permission: 'audioToVideo', group: 'edit' },
  { button: 'lipsync', permission: 'lipSyncVideo', group: 'edit' },
  { button: '3D', permission: '3d', group: 'edit' },
  { button: 'videoExtendFrame', permission: 'videoExtendFrame', group: 'edit' },
  { button: 'feedback', permission: 'supportFeedback', group: 'more' },
  { button: 'report', permission: 'supportReport', group: 'more' },
  { button: 'deleteSingleImg', permission: 'supportDelete', group: 'more' },
  { button: 'Share', permission: 'supportShare', group: 'more' },
  { button: 'aiErase', permission: 'imageSmartErase', group: 'edit' },
  { button: 'partialRedrawing', permission: 'imagePartialRepainting', group: 'edit' },
  { button: 'expandImage', permission: 'imageSmartExpand', group: 'edit' },
];

/**
 * The keys Easel grants (spec 2 §6 leaves the mapping to users open). An
 * account gets every image action the server performs and the video tools
 * (extend, upscale, frame interpolation); a visitor only the ones that need
 * no account. Audio (add music, lip sync), 3D, chat, editing with masks,
 * feedback and report are not offered (no service behind them yet).
 */
export function grantedPermissions(loggedIn: boolean): ReadonlySet<PermissionKey> {
  const visitor: PermissionKey[] = ['supportDownload', 'supportShare', 'supportDelete'];
  if (!loggedIn) return new Set(visitor);
  return new Set<PermissionKey>([
    ...visitor,
    'upscale',
    'variation',
    'extraUpscale',
    'removeBackground',
    'imageSmartExpand',
    'supportSave',
    'supportPublish',
    'videoExtend',
    'videoUpscale',
    'videoExtendFrame',
  ]);
}

/** The buttons that act on a video result; the rest act on an image. */
export const VIDEO_ACTIONS: ReadonlySet<ActionButton> = new Set<ActionButton>(['videoExtension', 'videoUpscale', 'videoExtendFrame', 'addMusic', 'lipsync']);

/** The buttons that act on either a picture or a video result (posting to the square). */
export const ANY_MEDIA_ACTIONS: ReadonlySet<ActionButton> = new Set<ActionButton>(['post']);

/** Buttons shown but not usable yet, with the tooltip saying why (none today: post opens the publish dialog). */
export const DISABLED_ACTIONS: Partial<Record<ActionButton, MessageKey>> = {};

/** The buttons to show on an image (or a video) result, by group, in table order (post on both). */
export function visibleActions(granted: ReadonlySet<PermissionKey>, media: 'image' | 'video' = 'image'): Record<ActionGroup, ActionButton[]> {
  const out: Record<ActionGroup, ActionButton[]> = { edit: [], more: [] };
  for (const def of ACTION_TABLE) {
    if (!ANY_MEDIA_ACTIONS.has(def.button) && VIDEO_ACTIONS.has(def.button) !== (media === 'video')) continue;
    if (granted.has(def.permission)) out[def.group].push(def.button);
  }
  return out;
}

/** Button labels (message keys). */
export const ACTION_LABELS: Record<ActionButton, MessageKey> = {
  upscale: 'tasks.action.upscale',
  variations: 'tasks.action.variations',
  extraUpscale: 'tasks.action.extraUpscale',
  imageEditing: 'tasks.action.imageEditing',
  videoExtension: 'tasks.action.videoExtension',
  aiGenerateVideo: 'tasks.action.aiGenerateVideo',
  playNow: 'tasks.action.playNow',
  chat: 'tasks.action.chat',
  videoUpscale: 'tasks.action.videoUpscale',
  post: 'tasks.action.post',
  removeBackground: 'tasks.action.removeBackground',
  save: 'tasks.action.save',
  download: 'tasks.action.download',
  addMusic: 'tasks.action.addMusic',
  lipsync: 'tasks.action.lipsync',
  '3D': 'tasks.action.3d',
  videoExtendFrame: 'tasks.action.videoExtendFrame',
  feedback: 'tasks.action.feedback',
  report: 'tasks.action.report',
  deleteSingleImg: 'tasks.action.delete',
  Share: 'tasks.action.share',
  aiErase: 'tasks.action.aiErase',
  partialRedrawing: 'tasks.action.partialRedrawing',
  expandImage: 'tasks.action.expand',
};
