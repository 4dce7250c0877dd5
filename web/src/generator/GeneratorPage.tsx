import { useEffect, useRef } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { routeAtom } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { trackTaskAtom } from '../tasks';
import { activeTabAtom, catalogueAtom, configKey, configsAtom, nIterChoiceAtom, paymentInfoAtom, roleAtom, studioModeAtom } from './atoms';
import type { Catalogue } from './catalogue';
import { defaultConfig } from './config';
import type { TabConfig } from './config';
import { refreshBalance } from './GenerateBar';
import { takesLoras, workspaceRoute } from './tabs';
import type { TabId } from './tabs';
import { canOpenTab, defaultNIter } from './roles';
import type { UnavailableGroup } from './tabs';
import type { MessageKey } from '../i18n/messages';
import { Workspace } from './Workspace';
import { VideoPage } from '../video/VideoPage';
import { AudioPage } from '../audio/AudioPage';
import { configSelect } from '../models/api';
import type { PickerEntry } from '../models/api';
import { chooseModel, withUserModels } from '../models/picker';
import './generator.css';

/** The built-in catalogue, loaded once per page load. */
let builtIn: Catalogue | null = null;

/**
 * Loads the catalogue (once) and the shared models the caller may use
 * (`model/config-select`, on every visit: a model published a moment ago is
 * offered). Without the shared models the built-in catalogue still works.
 */
async function loadCatalogue(): Promise<void> {
  if (builtIn === null) {
    appStore.set(catalogueAtom, { state: 'loading' });
    try {
      builtIn = await api.post<Catalogue>('/api/v1/task/v2/config/model');
    } catch (e) {
      const m = errorMessage(e);
      appStore.set(catalogueAtom, { state: 'error', message: 'key' in m && m.key === 'LoginFailed' ? { key: 'ServerError' } : m });
      return;
    }
  }
  const base = builtIn;
  let entries: PickerEntry[] = [];
  if (appStore.get(tokenAtom) !== null) entries = await configSelect(api).catch(() => []);
  appStore.set(catalogueAtom, { state: 'ready', catalogue: withUserModels(base, entries) });
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

/** Query `model_ver_no` preselects a checkpoint or adds a LoRA; `id` shows that task in the list (spec 1 §2, §4). */
function useQuery(studio: boolean) {
  const state = useAtomValue(catalogueAtom);
  const role = useAtomValue(roleAtom);
  // The query already applied in this visit (a later catalogue, with shared models, may still be needed for it).
  const applied = useRef<string | null>(null);
  useEffect(() => {
    if (state.state !== 'ready') return;
    const search = window.location.search;
    if (applied.current === search) return;
    const q = new URLSearchParams(search);
    const id = q.get('id');
    const ver = q.get('model_ver_no');
    if (!ver) {
      applied.current = search;
      if (id) appStore.set(trackTaskAtom, id);
      return;
    }
    // A model is used on a tab that takes LoRAs: text to image unless such a tab is open (and may be).
    const open = appStore.get(activeTabAtom);
    const tab: TabId = takesLoras(open) || !canOpenTab(role, 'textToImage') ? open : 'textToImage';
    if (tab !== open) appStore.set(activeTabAtom, tab);
    const key = configKey(studio, tab);
    const ctx = { catalogue: state.catalogue, studio, role, storedNIter: appStore.get(nIterChoiceAtom) };
    // A checkpoint is selected; a shared LoRA is added on a checkpoint of its family.
    const chosen = chooseModel(appStore.get(configsAtom)[key] ?? defaultConfig(tab, ctx), ver, ctx);
    if (chosen === null) return;
    applied.current = search;
    if (id) appStore.set(trackTaskAtom, id);
    appStore.set(configsAtom, (all) => ({ ...all, [key]: chosen }));
    // Read once per page visit; the role is read at that moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state, studio]);
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
