import { useEffect, useId } from 'react';
import { Link } from '../app/Link';
import { EDITOR_PATH } from '../editor/route';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { api } from '../app/services';
import { fetchVideoParams } from '../api/video';
import type { VideoParams } from '../api/video';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { TaskPanel } from '../tasks';
import { videoParamsAtom, videoPartAtom, videoProblemAtom, videoTabAtom } from './atoms';
import { ToolsPanel } from './ToolsPanel';
import { VideoBar } from './VideoBar';
import { VideoFields } from './VideoFields';
import { VIDEO_TABS } from './model';
import '../generator/generator.css';
import './video.css';

/** Loads the models' parameter config once. */
async function loadParams(): Promise<void> {
  if (appStore.get(videoParamsAtom).state === 'ready') return;
  appStore.set(videoParamsAtom, { state: 'loading' });
  try {
    appStore.set(videoParamsAtom, { state: 'ready', params: await fetchVideoParams(api) });
  } catch (e) {
    appStore.set(videoParamsAtom, { state: 'error', message: errorMessage(e) });
  }
}

function Tabs({ panelId }: { panelId: string }) {
  const t = useT();
  const [tab, setTab] = useAtom(videoTabAtom);
  const [part, setPart] = useAtom(videoPartAtom);
  const [, setProblem] = useAtom(videoProblemAtom);
  const tools = part === 'tools';
  return (
    <div className="gen-tabs video-tabs" role="tablist" aria-label={t('video.tabs')}>
      {VIDEO_TABS.map((id) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`video-tab-${id}`}
          className={id === tab && !tools ? 'gen-tabs__tab gen-tabs__tab--active' : 'gen-tabs__tab'}
          aria-selected={id === tab && !tools}
          aria-controls={panelId}
          onClick={() => {
            setTab(id);
            setPart('generate');
            setProblem(null);
          }}
        >
          {t(`video.tab.${id}`)}
        </button>
      ))}
      <button
        type="button"
        role="tab"
        id="video-tab-tools"
        className={tools ? 'gen-tabs__tab gen-tabs__tab--active' : 'gen-tabs__tab'}
        aria-selected={tools}
        aria-controls={panelId}
        onClick={() => setPart('tools')}
      >
        {t('video.tab.tools')}
      </button>
    </div>
  );
}

function Workspace({ params }: { params: VideoParams }) {
  const t = useT();
  const panelId = useId();
  const tab = useAtomValue(videoTabAtom);
  const tools = useAtomValue(videoPartAtom) === 'tools';
  const locale = useAtomValue(localeAtom);
  return (
    <div className="gen video">
      <div className="gen__main">
        <header className="gen__header">
          <h1>{t('video.title')}</h1>
          <Link to={localePath(locale, EDITOR_PATH)} className="button" data-testid="open-editor">
            {t('video.openEditor')}
          </Link>
          <p className="gen__note" data-testid="video-engine">
            {params.neural ? t('video.engine', { label: params.engine }) : t('video.engineReference', { label: params.engine })}
          </p>
        </header>
        <Tabs panelId={panelId} />
        {tools ? (
          <form
            id={panelId}
            className="gen-form panel"
            role="tabpanel"
            aria-labelledby="video-tab-tools"
            data-tab="tools"
            noValidate
            onSubmit={(e) => e.preventDefault()}
          >
            <h2 className="gen-form__title">{t('video.tab.tools')}</h2>
            <p className="muted gen-small gen-form__hint">{t('video.hint.tools')}</p>
            <ToolsPanel />
          </form>
        ) : (
          <form
            id={panelId}
            className="gen-form panel"
            role="tabpanel"
            aria-labelledby={`video-tab-${tab}`}
            data-tab={tab}
            noValidate
            onSubmit={(e) => e.preventDefault()}
          >
            <h2 className="gen-form__title">{t(`video.tab.${tab}`)}</h2>
            <p className="muted gen-small gen-form__hint">{t(`video.hint.${tab}`)}</p>
            <VideoFields key={tab} params={params} />
            <VideoBar params={params} />
          </form>
        )}
      </div>
      <aside className="gen__tasks" aria-label={t('gen.tasks')}>
        <TaskPanel />
      </aside>
    </div>
  );
}

/** `/{locale}/create/video`: the video creation page (spec 2 §2-§6). */
export function VideoPage() {
  const t = useT();
  const table = useMessages();
  const state = useAtomValue(videoParamsAtom);
  useEffect(() => {
    void loadParams();
  }, []);
  if (state.state === 'loading') {
    return (
      <section className="generator gen-loading" aria-label={t('video.title')} aria-busy="true">
        <p className="muted">{t('gen.loading')}</p>
      </section>
    );
  }
  if (state.state === 'error') {
    return (
      <section className="panel gen-unavailable" role="alert">
        <p className="form-error">{renderErrorMessage(table, state.message)}</p>
        <button type="button" className="button" onClick={() => void loadParams()}>
          {t('gen.retry')}
        </button>
      </section>
    );
  }
  return (
    <section className="generator" aria-label={t('video.title')}>
      <Workspace params={state.params} />
    </section>
  );
}
