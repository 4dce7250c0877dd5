import { useEffect } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { routeAtom } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { trackTaskAtom } from '../tasks';
import { activeTabAtom, catalogueAtom, configKey, configsAtom, nIterChoiceAtom, paymentInfoAtom, roleAtom, studioModeAtom } from './atoms';
import type { Catalogue } from './catalogue';
import { defaultConfig, withCheckpoint } from './config';
import type { TabConfig } from './config';
import { refreshBalance } from './GenerateBar';
import { defaultNIter } from './roles';
import { workspaceRoute } from './tabs';
import type { UnavailableGroup } from './tabs';
import type { MessageKey } from '../i18n/messages';
import { Workspace } from './Workspace';
import { VideoPage } from '../video/VideoPage';
import { AudioPage } from '../audio/AudioPage';
import './generator.css';

/** Loads the catalogue once. */
async function loadCatalogue(): Promise<void> {
  if (appStore.get(catalogueAtom).state === 'ready') return;
  appStore.set(catalogueAtom, { state: 'loading' });
  try {
    const catalogue = await api.post<Catalogue>('/api/v1/task/v2/config/model');
    appStore.set(catalogueAtom, { state: 'ready', catalogue });
  } catch (e) {
    const m = errorMessage(e);
    appStore.set(catalogueAtom, { state: 'error', message: 'key' in m && m.key === 'LoginFailed' ? { key: 'ServerError' } : m });
  }
}

/** Reads payment info (hence the role) and the balance for the current token. */
function useAccountFacts() {
  const token = useAtomValue(tokenAtom);
  const setPayment = useSetAtom(paymentInfoAtom);
  useEffect(() => {
    if (token === null) return;
    let live = true;
    api
      .paymentInfo({ token })
      .then((info) => live && setPayment({ token, info }))
      .catch(() => {});
    void refreshBalance(token);
    return () => {
      live = false;
    };
  }, [token, setPayment]);
}

/** Keeps each config's image count at the role's default when the role changes (login, upgrade). */
function useRoleDefaults() {
  const role = useAtomValue(roleAtom);
  const stored = useAtomValue(nIterChoiceAtom);
  const setConfigs = useSetAtom(configsAtom);
  const state = useAtomValue(catalogueAtom);
  useEffect(() => {
    if (state.state !== 'ready') return;
    setConfigs((all) => {
      const next: Record<string, TabConfig> = {};
      for (const [k, c] of Object.entries(all)) {
        const family = state.catalogue.checkpoints.find((x) => x.model_ver_no === c.modelVerNo)?.family ?? '';
        next[k] = { ...c, nIter: defaultNIter(role, family, stored) };
      }
      return next;
    });
    // Only a role change resets the count; the stored choice is read at that moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [role, state.state, setConfigs]);
}

/** Query `model_ver_no` preselects a checkpoint; `id` shows that task in the list (spec 1 §2, §4). */
function useQuery(studio: boolean) {
  const state = useAtomValue(catalogueAtom);
  const role = useAtomValue(roleAtom);
  useEffect(() => {
    if (state.state !== 'ready') return;
    const q = new URLSearchParams(window.location.search);
    const id = q.get('id');
    if (id) appStore.set(trackTaskAtom, id);
    const ver = q.get('model_ver_no');
    if (!ver || !state.catalogue.checkpoints.some((c) => c.model_ver_no === ver)) return;
    const tab = appStore.get(activeTabAtom);
    const key = configKey(studio, tab);
    const ctx = { catalogue: state.catalogue, studio, role, storedNIter: appStore.get(nIterChoiceAtom) };
    appStore.set(configsAtom, (all) => ({ ...all, [key]: withCheckpoint(all[key] ?? defaultConfig(tab, ctx), ver, ctx) }));
    // Read once per page visit.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.state, studio]);
}

const GROUP_LABELS: Readonly<Record<UnavailableGroup, MessageKey>> = {
  effect: 'gen.group.effect',
  app: 'gen.group.app',
  multiImage: 'gen.group.multiImage',
};

function Unavailable({ group }: { group: string }) {
  const t = useT();
  return (
    <section className="panel gen-unavailable" aria-labelledby="gen-unavailable-title">
      <h1 id="gen-unavailable-title">{t('gen.unavailableTitle')}</h1>
      <p>{t('gen.unavailable', { group })}</p>
    </section>
  );
}

/** `/{locale}/create`, `/create/{generateType}`, `/studio`: the generator workspace. */
export function GeneratorPage() {
  const t = useT();
  const table = useMessages();
  const route = useAtomValue(routeAtom);
  const where = workspaceRoute(route.rest);
  const studio = where.kind === 'image' && where.studio;
  const setStudio = useSetAtom(studioModeAtom);
  const catalogue = useAtomValue(catalogueAtom);

  useEffect(() => setStudio(studio), [studio, setStudio]);
  useEffect(() => {
    void loadCatalogue();
  }, []);
  useAccountFacts();
  useRoleDefaults();
  useQuery(studio);

  if (where.kind === 'video') return <VideoPage />;
  if (where.kind === 'audio') return <AudioPage />;
  if (where.kind === 'unavailable') return <Unavailable group={t(GROUP_LABELS[where.group])} />;
  if (where.kind === 'unknown') return <Unavailable group={where.value} />;
  if (catalogue.state === 'loading') {
    return (
      <section className="generator gen-loading" aria-label={t('gen.title')} aria-busy="true">
        <p className="muted">{t('gen.loading')}</p>
      </section>
    );
  }
  if (catalogue.state === 'error') {
    return (
      <section className="panel gen-unavailable" role="alert">
        <p className="form-error">{renderErrorMessage(table, catalogue.message)}</p>
        <button type="button" className="button" onClick={() => void loadCatalogue()}>
          {t('gen.retry')}
        </button>
      </section>
    );
  }
  return (
    <section className="generator" aria-label={t('gen.title')}>
      <Workspace key={studio ? 'studio' : 'normal'} />
    </section>
  );
}
