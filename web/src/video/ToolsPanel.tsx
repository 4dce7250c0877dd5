import { useEffect, useId, useState } from 'react';
import { loggedInAtom, tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { VIDEO_PATHS, fetchVideoHistories } from '../api/video';
import type { VideoEstimate } from '../api/video';
import { refreshBalance } from '../generator/GenerateBar';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { appStore, useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { trackTaskAtom } from '../tasks';
import type { Task } from '../tasks/types';
import { readVideoMeta } from './cover';
import {
  runVideoTool,
  videoSourceKindAtom,
  videoToolAtom,
  videoToolBusyAtom,
  videoToolOptionsAtom,
  videoToolProblemAtom,
  videoToolSourceAtom,
  videoUploadedAtom,
} from './toolRun';
import { EXTEND_DURATIONS, VIDEO_TOOLS, checkTool, myVideos, taskSource, toolEstimateBody } from './tools';
import type { VideoSource } from './tools';
import { VideoBarEstimate, VIDEO_ESTIMATE_DEBOUNCE_MS } from './VideoBar';
import { VideoUpload } from './VideoUpload';

/** How many finished videos "my videos" lists. */
const MY_VIDEOS_LIMIT = 50;

/** "My videos": the user's finished video tasks to pick from. */
function MyVideos() {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const [source, setSource] = useAtom(videoToolSourceAtom);
  const [list, setList] = useState<{ state: 'loading' } | { state: 'ready'; items: Task[] } | { state: 'error' }>({ state: 'loading' });
  const [reading, setReading] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    // The server's finished video tasks; myVideos keeps those with an MP4 to work on.
    fetchVideoHistories(api, { limit: MY_VIDEOS_LIMIT }, { signal: controller.signal })
      .then((a) => setList({ state: 'ready', items: myVideos(a.items) }))
      .catch(() => {
        if (!controller.signal.aborted) setList({ state: 'error' });
      });
    return () => controller.abort();
  }, [token]);

  async function pick(task: Task) {
    const base = taskSource(task);
    if (!base || base.kind !== 'task') return;
    setReading(task.id);
    try {
      // The view does not carry the seconds: read them from the video.
      const meta = await readVideoMeta(base.mp4).catch(() => null);
      setSource({ ...base, duration: meta?.duration ?? 0, width: meta?.width || base.width, height: meta?.height || base.height });
    } finally {
      setReading(null);
    }
  }

  if (list.state === 'loading') return <p className="muted">{t('gen.loading')}</p>;
  if (list.state === 'error') return <p className="form-error">{t('video.tool.myVideosError')}</p>;
  if (list.items.length === 0) return <p className="muted" data-testid="my-videos-empty">{t('video.tool.myVideosEmpty')}</p>;
  return (
    <div className="video-choices video-mine" role="radiogroup" aria-label={t('video.tool.myVideos')}>
      {list.items.map((task) => {
        const on = source?.kind === 'task' && source.taskId === task.id;
        const poster = task.img_uris[0];
        return (
          <button
            key={task.id}
            type="button"
            role="radio"
            aria-checked={on}
            aria-busy={reading === task.id}
            className={on ? 'video-choice video-mine__item is-on' : 'video-choice video-mine__item'}
            data-task-id={task.id}
            onClick={() => void pick(task)}
          >
            {poster && <img src={poster} alt="" width={96} height={Math.round((96 * task.height) / Math.max(1, task.width))} loading="lazy" />}
            <span>{task.prompt || t('video.tool.untitled')}</span>
            <span className="muted gen-small">{new Date(task.create_at).toLocaleString()}</span>
          </button>
        );
      })}
    </div>
  );
}

function SourceLine({ source }: { source: VideoSource }) {
  const t = useT();
  const name = source.kind === 'upload' ? source.name : t('video.tool.taskSource');
  return (
    <p className="muted gen-small" data-testid="video-tool-source">
      {t('video.tool.source', { name, width: source.width, height: source.height, seconds: Math.round(source.duration * 10) / 10 })}
    </p>
  );
}

/** The tools on an existing video: upscale, extend, frame interpolation (spec 2 §7). */
export function ToolsPanel() {
  const t = useT();
  const extendId = useId();
  const promptId = useId();
  const [tool, setTool] = useAtom(videoToolAtom);
  const [kind, setKind] = useAtom(videoSourceKindAtom);
  const [source, setSource] = useAtom(videoToolSourceAtom);
  const [options, setOptions] = useAtom(videoToolOptionsAtom);
  const uploaded = useAtomValue(videoUploadedAtom);

  function chooseKind(k: 'upload' | 'task') {
    if (k === kind) return;
    setKind(k);
    // A finished upload is the source again when going back to it.
    setSource(k === 'upload' ? uploaded : null);
  }

  return (
    <div className="video-tools">
      <fieldset className="gen-fieldset">
        <legend>{t('video.tool.pick')}</legend>
        <div className="video-choices" role="radiogroup" aria-label={t('video.tool.pick')}>
          {VIDEO_TOOLS.map((id) => (
            <button key={id} type="button" role="radio" aria-checked={id === tool} className={id === tool ? 'video-choice is-on' : 'video-choice'} onClick={() => setTool(id)}>
              <span>{t(`video.tool.${id}`)}</span>
              <span className="muted gen-small">{t(`video.tool.${id}.hint`)}</span>
            </button>
          ))}
        </div>
      </fieldset>
      <fieldset className="gen-fieldset">
        <legend>{t('video.tool.sourceKind')}</legend>
        <div className="video-choices" role="radiogroup" aria-label={t('video.tool.sourceKind')}>
          {(['upload', 'task'] as const).map((k) => (
            <button key={k} type="button" role="radio" aria-checked={k === kind} className={k === kind ? 'video-choice is-on' : 'video-choice'} onClick={() => chooseKind(k)}>
              {k === 'upload' ? t('video.tool.fromUpload') : t('video.tool.myVideos')}
            </button>
          ))}
        </div>
        <div className="video-source">{kind === 'upload' ? <VideoUpload /> : <MyVideos />}</div>
        {source && <SourceLine source={source} />}
      </fieldset>
      {tool === 'extend' && (
        <div className="video-row">
          <div className="field">
            <label htmlFor={extendId}>{t('video.tool.extendBy')}</label>
            <select className="gen-select" id={extendId} value={options.extendSeconds} onChange={(e) => setOptions({ ...options, extendSeconds: Number(e.currentTarget.value) })}>
              {EXTEND_DURATIONS.map((d) => (
                <option key={d} value={d}>
                  {t('video.seconds', { n: d })}
                </option>
              ))}
            </select>
          </div>
          <div className="field video-tools__prompt">
            <label htmlFor={promptId}>{t('video.tool.extendPrompt')}</label>
            <input id={promptId} type="text" value={options.prompt} placeholder={t('video.tool.extendPromptHint')} onChange={(e) => setOptions({ ...options, prompt: e.currentTarget.value })} />
          </div>
        </div>
      )}
      <ToolBar />
    </div>
  );
}

/** The estimate, the problem and the run button of the tools. */
function ToolBar() {
  const t = useT();
  const tool = useAtomValue(videoToolAtom);
  const source = useAtomValue(videoToolSourceAtom);
  const options = useAtomValue(videoToolOptionsAtom);
  const busy = useAtomValue(videoToolBusyAtom);
  const [problem, setProblem] = useAtom(videoToolProblemAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const token = useAtomValue(tokenAtom);
  const trackTask = useSetAtom(trackTaskAtom);
  // The estimate of the body it was asked for (another body shows none until answered).
  const [answer, setAnswer] = useState<{ json: string; estimate: VideoEstimate } | null>(null);

  const ok = checkTool(tool, source, loggedIn) === null;
  const json = ok && source ? JSON.stringify(toolEstimateBody(tool, source, options)) : '';
  const estimate = answer !== null && answer.json === json ? answer.estimate : null;
  useEffect(() => setProblem(null), [tool, source, options, setProblem]);
  useEffect(() => {
    if (json === '') return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api
        .post<VideoEstimate>(VIDEO_PATHS.estimate, JSON.parse(json) as unknown, { signal: controller.signal })
        .then((e) => setAnswer({ json, estimate: e }))
        // A server that cannot estimate the tools: the cost shows on the task.
        .catch(() => {});
    }, VIDEO_ESTIMATE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [json, token]);

  async function onRun() {
    await runVideoTool({
      store: appStore,
      api,
      tool,
      source,
      options,
      loggedIn,
      onCreated: (id) => {
        showToast(appStore, t('CreateSuccess'));
        trackTask(id);
        void refreshBalance(token);
      },
    });
  }

  return (
    <div className="gen-bar">
      {problem && (
        <p className="form-error" role="alert" data-testid="video-tool-problem" data-key={problem.key ?? ''}>
          {problem.key !== null && isMessageKey(problem.key) ? t(problem.key) : problem.text || t('ServerError')}
        </p>
      )}
      <div className="gen-bar__row">
        <VideoBarEstimate estimate={estimate} testId="video-tool-cost" />
        <button
          type="submit"
          className="button button--primary gen-bar__go"
          aria-busy={busy}
          disabled={busy}
          data-testid="video-tool-run"
          onClick={(e) => {
            e.preventDefault();
            void onRun();
          }}
        >
          {busy ? t('gen.generating') : t(`video.tool.run.${tool}`)}
        </button>
      </div>
    </div>
  );
}
