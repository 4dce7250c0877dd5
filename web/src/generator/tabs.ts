// The generator's menu tabs (spec 1 §2), their action codes (§4), the call
// each one posts to (§7), what each one needs (§5), and the route mapping
// of `/create/{generateType}` and `/studio`.

export const TABS = [
  'SIMPLE',
  'textToImage',
  'imageToImage',
  'conditionToImage',
  'extraUpscale',
  'descriptors',
  'preview',
  'promptStudio',
  'expansion',
  'faceSwap',
  'animGen',
  'characterRepair',
] as const;

export type TabId = (typeof TABS)[number];

/** The starter tab: the only one a visitor may use (spec 1 §6). */
export const STARTER_TAB: TabId = 'SIMPLE';

export function isTabId(v: unknown): v is TabId {
  return typeof v === 'string' && (TABS as readonly string[]).includes(v);
}

/** Action codes of spec 1 §4. SIMPLE and promptStudio make pictures from text. */
export const TAB_ACTION: Readonly<Record<TabId, number>> = {
  SIMPLE: 1,
  textToImage: 1,
  imageToImage: 9,
  conditionToImage: 10,
  extraUpscale: 6,
  descriptors: 8,
  preview: 12,
  promptStudio: 1,
  expansion: 13,
  faceSwap: 22,
  animGen: 24,
  characterRepair: 25,
};

/**
 * The tab that shows a task of `action` (spec 1 §4 "the tab is chosen from
 * the action"): upscale (2) and extra upscale (6) open extraUpscale,
 * variation (3) imageToImage; unknown actions null.
 */
export function tabOfAction(action: number): TabId | null {
  switch (action) {
    case 1:
      return 'textToImage';
    case 2:
    case 6:
      return 'extraUpscale';
    case 3:
    case 9:
      return 'imageToImage';
    case 10:
      return 'conditionToImage';
    case 8:
      return 'descriptors';
    case 12:
      return 'preview';
    case 13:
      return 'expansion';
    case 22:
      return 'faceSwap';
    case 24:
      return 'animGen';
    case 25:
      return 'characterRepair';
    default:
      return null;
  }
}

/**
 * The call a tab posts to: the v2 calls where the action has one, else
 * `/task/create` with `action` in the body. (The v2 upscale call is action
 * 2; the tab's extra upscale is 6, so it goes through create.)
 */
export function callPath(tab: TabId): string {
  switch (TAB_ACTION[tab]) {
    case 1:
      return '/api/v1/task/v2/text-to-img';
    case 9:
      return '/api/v1/task/v2/img-to-img';
    case 10:
      return '/api/v1/task/v2/controlNet-to-img';
    case 8:
      return '/api/v1/task/v2/img-to-text';
    default:
      return '/api/v1/task/create';
  }
}

/** Spec 1 §5: text tabs need a non-empty prompt. */
export function needsPrompt(tab: TabId): boolean {
  return [1, 9, 10, 13].includes(TAB_ACTION[tab]);
}

/** Spec 1 §5: image tabs need their image(s). */
export function needsImage(tab: TabId): boolean {
  return TAB_ACTION[tab] !== 1;
}

/** Tabs that run a checkpoint, and so offer the model and LoRA pickers. */
export function runsCheckpoint(tab: TabId): boolean {
  return [1, 9, 10, 13, 24, 25].includes(TAB_ACTION[tab]);
}

/** Tabs that take LoRAs (the starter tab offers a look instead). */
export function takesLoras(tab: TabId): boolean {
  return runsCheckpoint(tab) && tab !== STARTER_TAB;
}

/** Tabs whose picture size the user picks. */
export function picksSize(tab: TabId): boolean {
  return [1, 9, 10].includes(TAB_ACTION[tab]);
}

/** Tabs whose output count is `n_iter`. */
export function isBatch(tab: TabId): boolean {
  return [1, 9, 10, 13].includes(TAB_ACTION[tab]);
}

/**
 * Spec 1 §5 "Text, image and expansion tabs with category 1 or 2 need a
 * base model or artwork".
 */
export function needsModelChoice(tab: TabId, canonicalCategory: number): boolean {
  return [1, 9, 10, 13].includes(TAB_ACTION[tab]) && canonicalCategory === 1;
}

/** `{generateType}` route values (spec 1 §2) and the tab groups they open. */
export const GENERATE_TYPES = {
  image: 'generateImage',
  effect: 'effect',
  video: 'generateVideo',
  'ai-app': 'app',
  audio: 'generateAudio',
  element: 'multiImage',
} as const;

export type GenerateType = keyof typeof GENERATE_TYPES;

/** Tab groups of issues not built yet: they show a "not available yet" panel. */
export type UnavailableGroup = Exclude<(typeof GENERATE_TYPES)[GenerateType], 'generateImage' | 'generateVideo' | 'generateAudio'>;

/** What a workspace route opens. */
export type WorkspaceRoute =
  | { kind: 'image'; studio: boolean }
  | { kind: 'video' }
  | { kind: 'audio' }
  | { kind: 'unavailable'; group: UnavailableGroup }
  | { kind: 'unknown'; value: string };

/** `/create`, `/studio`, `/create/{generateType}` (the path after the locale). */
export function workspaceRoute(rest: string): WorkspaceRoute {
  if (rest === '/studio' || rest === '/studio/') return { kind: 'image', studio: true };
  const m = /^\/create(?:\/([^/]+))?\/?$/.exec(rest);
  if (!m || m[1] === undefined) return { kind: 'image', studio: false };
  const value = decodeURIComponent(m[1]);
  if (!Object.prototype.hasOwnProperty.call(GENERATE_TYPES, value)) return { kind: 'unknown', value };
  const group = GENERATE_TYPES[value as GenerateType];
  if (group === 'generateImage') return { kind: 'image', studio: false };
  if (group === 'generateVideo') return { kind: 'video' };
  if (group === 'generateAudio') return { kind: 'audio' };
  return { kind: 'unavailable', group };
}
