// The home page's calls: viewers' (banners, slots, modules, popups) and the
// operators' composer (`admin/home/*`, the preview).
import { api } from '../app/services';
import type {
  Audience,
  Banner,
  Composition,
  DraftState,
  ElementView,
  ItemKind,
  Module,
  Popup,
  PopupAnswer,
  PopupStats,
  Preview,
  SlotView,
} from './types';

export const homeApi = {
  slots: (lang: string, slot: string) => api.post<{ slots: SlotView[] }>('/api/v1/slot/list', { lang, slot }),
  moduleElements: (moduleId: string, lang: string) =>
    api.post<{ module_id: string; elements: ElementView[]; next_cursor: string | null }>(
      '/api/v1/square/component/module/element',
      { module_id: moduleId, lang },
    ),
  popup: (lang: string, tz: string) => api.post<PopupAnswer>('/api/v1/face-photo/get', { lang, tz }),
  markPopup: (id: string, action: 'close' | 'click') =>
    api.post<unknown>('/api/v1/face-photo/mark-face-photo-popup', { id, action }),
  dontPop: (id: string) => api.post<unknown>('/api/v1/face-photo/dont-pop', { id }),

  draft: () => api.post<DraftState>('/api/v1/admin/home/draft', {}),
  saveBanner: (version: number, item: Partial<Banner>) =>
    api.post<{ id: string; draft: Composition }>('/api/v1/admin/home/banner/save', { version, item }),
  saveModule: (version: number, item: Partial<Module>) =>
    api.post<{ id: string; draft: Composition }>('/api/v1/admin/home/module/save', { version, item }),
  savePopup: (version: number, item: Partial<Popup>) =>
    api.post<{ id: string; draft: Composition }>('/api/v1/admin/home/popup/save', { version, item }),
  remove: (version: number, kind: ItemKind, id: string) =>
    api.post<{ draft: Composition }>('/api/v1/admin/home/delete', { version, kind, id }),
  setFeatures: (version: number, features: Record<string, boolean>) =>
    api.post<{ draft: Composition }>('/api/v1/admin/home/features', { version, features }),
  popupStats: () => api.post<{ stats: PopupStats[] }>('/api/v1/admin/home/popup/stats', {}),
  publish: (version: number) => api.post<{ version: number; published_at: number }>('/api/v1/admin/home/publish', { version }),
  preview: (audience: Audience, lang: string) => api.post<Preview>('/api/v1/square/component/page/preview', { audience, lang }),
};
