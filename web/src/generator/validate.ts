// The checks made before sending (spec 1 §5), in the server's order
// (protocol/src/task/rules.rs) and with its message keys, so the user sees
// the message the server would answer without a round trip.
import { checkSize, limitsFor } from './catalogue';
import type { Catalogue } from './catalogue';
import { categoryOf, checkpointOf, MAX_OUTPUT_SIDE } from './config';
import type { TabConfig } from './config';
import { canOpenTab, loraLimitExceeded } from './roles';
import type { Role } from './roles';
import { needsModelChoice, needsPrompt, picksSize, STARTER_TAB, TAB_ACTION, takesLoras } from './tabs';
import type { TabId } from './tabs';

/** What a failed check shows: a message, the LoRA-limit dialog, or the login dialog. */
export type Problem =
  | { show: 'message'; key: ProblemKey }
  | { show: 'loraDialog'; key: 'LoRALimit5TipWeb' }
  | { show: 'login'; key: 'NeedLogin' };

export type ProblemKey =
  | 'uploadingWaitTip'
  | 'pleaseUoloadImage'
  | 'pleaseSelectImage'
  | 'PromptNotEmpty'
  | 'PleaseSelectBaseName'
  | 'ImageSizeExceedsError'
  | 'uploadError'
  | 'studio25'
  | 'ImageSizeTooSmall'
  | 'ImageSizeTooLarge'
  | 'ImageRatioInvalid';

export interface ValidationContext {
  catalogue: Catalogue;
  studio: boolean;
  role: Role;
  /** An upload for this tab is still running. */
  uploading: boolean;
}

/** Spec 1 §5: an input the server can fetch, i.e. an uploaded http(s) or /files/ URL. */
export function isUploadedUrl(url: string): boolean {
  if (url === '' || url.length > 2048 || /[\s\\]/.test(url)) return false;
  const m = /^https?:\/\/([^/?#]*)/i.exec(url);
  if (m) {
    const host = m[1] ?? '';
    return host !== '' && !host.startsWith(':') && !host.includes('@');
  }
  if (url.startsWith('/files/')) {
    const rest = url.slice('/files/'.length);
    return rest !== '' && !rest.split('/').some((s) => s === '' || s === '.' || s === '..');
  }
  return false;
}

/** The image(s) a tab needs, present or not. */
function inputsOf(tab: TabId, c: TabConfig): (string | undefined)[] {
  switch (TAB_ACTION[tab]) {
    case 10:
      return [c.control.image?.url];
    case 22:
      return [c.image?.url, c.faceSource?.url];
    case 1:
      return [];
    default:
      return [c.image?.url];
  }
}

/** The first problem with a tab's config, or null when it may be sent. */
export function validate(tab: TabId, c: TabConfig, ctx: ValidationContext): Problem | null {
  const action = TAB_ACTION[tab];
  // 1. Roles (§6).
  if (!canOpenTab(ctx.role, tab)) return { show: 'login', key: 'NeedLogin' };
  // An upload still running (§5 uploadingWaitTip).
  if (ctx.uploading) return { show: 'message', key: 'uploadingWaitTip' };
  // 2. The free LoRA limit (§5, §6).
  if (takesLoras(tab) && loraLimitExceeded(ctx.role, c.loras.length)) {
    return { show: 'loraDialog', key: 'LoRALimit5TipWeb' };
  }
  // 3. Images.
  const inputs = inputsOf(tab, c);
  if (inputs.some((u) => u === undefined || u === '')) {
    return { show: 'message', key: action === 24 ? 'pleaseSelectImage' : 'pleaseUoloadImage' };
  }
  // 4. Prompt (studio with a condition image is exempt).
  const category = categoryOf(c, tab, ctx);
  const studioCondition = ctx.studio && action === 10 && c.control.image !== null;
  if (needsPrompt(tab) && c.prompt.trim() === '' && !studioCondition) {
    return { show: 'message', key: 'PromptNotEmpty' };
  }
  // 5. Base model.
  const ck = checkpointOf(c, tab, ctx.catalogue);
  if (needsModelChoice(tab, category) && !ck) return { show: 'message', key: 'PleaseSelectBaseName' };
  // 6. Output sizes over 4096.
  if (action === 6 && c.image) {
    const w = Math.round(c.image.width * c.scalingRatio);
    const h = Math.round(c.image.height * c.scalingRatio);
    if (w > MAX_OUTPUT_SIDE || h > MAX_OUTPUT_SIDE) return { show: 'message', key: 'ImageSizeExceedsError' };
  }
  if (action === 13 && (c.width > MAX_OUTPUT_SIDE || c.height > MAX_OUTPUT_SIDE)) {
    return { show: 'message', key: 'ImageSizeExceedsError' };
  }
  if (action === 9 && c.mask !== '' && c.image && Math.max(c.image.width, c.image.height) > MAX_OUTPUT_SIDE) {
    return { show: 'message', key: 'ImageSizeExceedsError' };
  }
  // 7. Uploaded inputs and the mask.
  const urls = inputs.filter((u): u is string => u !== undefined);
  if (action === 9 && c.mask !== '') urls.push(c.mask);
  if (urls.some((u) => !isUploadedUrl(u))) return { show: 'message', key: 'uploadError' };
  // 8. Studio: LoRAs of another family than the checkpoint's.
  if (ctx.studio && !c.loraIgnore && ck && takesLoras(tab) && c.loras.some((l) => l.base_model !== ck.family)) {
    return { show: 'message', key: 'studio25' };
  }
  // 9. Sizes against the family's (or studio's) limits.
  if ((picksSize(tab) || action === 13) && tab !== STARTER_TAB && ck) {
    const limits = limitsFor(ctx.catalogue, ck.family, ctx.studio);
    if (limits) {
      if (action === 13) {
        if (c.width < limits.min || c.height < limits.min) return { show: 'message', key: 'ImageSizeTooSmall' };
      } else {
        const problem = checkSize(c.width, c.height, limits);
        if (problem) return { show: 'message', key: problem };
      }
    }
  }
  return null;
}
