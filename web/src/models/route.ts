// The model pages' paths (after the locale):
//   /models                    the models feed (filters in the query)
//   /models/new                the upload wizard (`?model_id=` adds a version)
//   /models/my                 my models (drafts and published) and earnings
//   /models/datasets           my datasets; /models/datasets/{id} one of them
//   /models/train              the training page (`?dataset_id=`)
//   /models/leaderboards       the boards with their windows
//   /models/detail/{id}        a model (`?ver=` selects the version tab; the
//                              spec's link of a model card, obj_type 2)

export type ModelsRoute =
  | { view: 'feed' }
  | { view: 'new' }
  | { view: 'my' }
  | { view: 'datasets' }
  | { view: 'dataset'; id: string }
  | { view: 'train' }
  | { view: 'leaderboards' }
  | { view: 'detail'; id: string };

export const MODELS_PATH = '/models';
const FIXED = ['new', 'my', 'datasets', 'train', 'leaderboards'] as const;

function decode(s: string): string | null {
  try {
    const v = decodeURIComponent(s);
    return v === '' ? null : v;
  } catch {
    return null;
  }
}

export function parseModelsPath(rest: string): ModelsRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === MODELS_PATH) return { view: 'feed' };
  if (!path.startsWith(`${MODELS_PATH}/`)) return null;
  const parts = path.slice(MODELS_PATH.length + 1).split('/');
  const [head = '', second] = parts;
  if (parts.length === 2 && (head === 'datasets' || head === 'detail')) {
    const id = decode(second ?? '');
    if (id === null) return null;
    return head === 'detail' ? { view: 'detail', id } : { view: 'dataset', id };
  }
  if (parts.length !== 1) return null;
  return (FIXED as readonly string[]).includes(head) ? { view: head as (typeof FIXED)[number] } : null;
}

export function modelsPath(route: ModelsRoute): string {
  switch (route.view) {
    case 'feed':
      return MODELS_PATH;
    case 'detail':
      return `${MODELS_PATH}/detail/${encodeURIComponent(route.id)}`;
    case 'dataset':
      return `${MODELS_PATH}/datasets/${encodeURIComponent(route.id)}`;
    default:
      return `${MODELS_PATH}/${route.view}`;
  }
}
