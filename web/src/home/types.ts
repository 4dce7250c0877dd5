// Wire types of the home page's composition (protocol/src/home): what
// operators save and what viewers receive.
export type Audience = 'visitor' | 'free' | 'member';
export type Cap = 'once' | 'daily' | 'weekly' | 'every_visit';
export type PopupKind = 'face_photo' | 'wakeup' | 'notice';
export type LiveSource = 'works' | 'posts' | 'videos' | 'characters' | 'models' | 'activities';
export type ElementKind = 'work' | 'model' | 'character' | 'activity';
export type ItemKind = 'banner' | 'module' | 'popup';

export interface Targeting {
  audiences: Audience[];
  languages: string[];
}

export interface Schedule {
  start: number | null;
  end: number | null;
}

interface Item {
  id: string;
  order: number;
  enabled: boolean;
  targeting: Targeting;
  schedule: Schedule;
}

export interface Banner extends Item {
  slot: string;
  image: string;
  title: string;
  link: string;
}

export interface LiveQuery {
  source: LiveSource;
  order: 'hot' | 'new';
  window: 'day' | 'week' | 'month' | 'all';
  size: number;
}

export interface Module extends Item {
  slot: string;
  title: string;
  elements: { kind: ElementKind; id: string }[];
  live: LiveQuery | null;
  link: string;
}

export interface Popup extends Item {
  kind: PopupKind;
  image: string;
  title: string;
  body: string;
  link: string;
  cap: Cap;
  allow_dont_pop: boolean;
  away_days: number;
}

export interface Composition {
  version: number;
  updated_at: number;
  updated_by: string;
  published_at: number | null;
  banners: Banner[];
  modules: Module[];
  popups: Popup[];
  features: Record<string, boolean>;
}

export interface DraftState {
  draft: Composition;
  live_version: number;
  published_at: number | null;
  link_hosts: string[];
  /** The slots the web app places (`home-top`, `home-modules`, ...). */
  slots: string[];
}

/** How often something happened: every time, and by distinct accounts and visitors. */
export interface Tally {
  total: number;
  accounts: number;
  visitors: number;
}

export interface PopupStats {
  id: string;
  shown: Tally;
  closed: Tally;
  clicked: Tally;
  dont_pop: Tally;
}

export interface BannerView {
  id: string;
  slot: string;
  image: string;
  title: string;
  link: string;
}

export interface ModuleView {
  id: string;
  slot: string;
  title: string;
  link: string;
  source: 'ids' | 'live';
  count: number;
}

export interface PopupView {
  id: string;
  kind: PopupKind;
  image: string;
  title: string;
  body: string;
  link: string;
  cap: Cap;
  allow_dont_pop: boolean;
}

export interface ElementView {
  kind: ElementKind;
  id: string;
  card: { title?: string; name?: string; cover_url?: string; avatar?: string; [k: string]: unknown };
}

export interface SlotView {
  name: string;
  banners: BannerView[];
  modules: ModuleView[];
}

export interface PopupAnswer {
  show: boolean;
  popup: PopupView | null;
  away_days: number;
}

export interface Preview {
  version: number;
  audience: Audience;
  language: string;
  banners: BannerView[];
  slots: SlotView[];
  modules: { module: ModuleView; elements: ElementView[] }[];
  popups: PopupView[];
}
