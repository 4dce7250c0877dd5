// The training page (issue 19 item 4, 6): a dataset, a new LoRA model (or a
// new version of an own one), the base model and the parameters (the
// dataset kind's suggestions), the step count and the server's estimate in
// credits, start; then the trainings in progress with live progress and
// each one's log. Progress comes from the socket's task frames (frame 10,
// `trainPush.ts`); `batch-progress` is read once when a training ends (the
// server applies its result then) or starts, after a resume that lost
// frames, and polled only while the socket is not online.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { locationAtom } from '../router/router';
import { socketStateAtom } from '../socket/atoms';
import { useAtomValue } from '../state/jotai';
import { myModels } from './api';
import type { ModelView } from './api';
import { datasets, defaultResolution, EMPTY_TRAIN, isFinished, OPTIMIZERS, RESOLUTIONS, TaskStatus, totalSteps, trainProblem, training, withTemplate } from './training';
import type { Dataset, DatasetTemplate, Estimate, TrainForm, TrainState } from './training';
import { listenTrainings } from './trainPush';
import { credits, ErrorLine, useFamilies, useModelsHref } from './ui';

const POLL_MS = 2_000;

/** The label of the field `trainProblem` names. */
const FIELD_LABELS: Readonly<Record<string, MessageKey>> = {
  dataset: 'models.train.dataset',
  name: 'models.form.name',
  epochs: 'models.train.epochs',
  repeats: 'models.train.repeats',
  resolution: 'models.train.resolution',
  network_dim: 'models.train.dim',
  network_alpha: 'models.train.alpha',
  learning_rate: 'models.train.lr',
  batch_size: 'models.train.batch',
  trigger_word: 'models.train.trigger',
  steps: 'models.train.tooManySteps',
};

function NumberField({ label, value, step, min, max, onChange }: { label: string; value: number; step: number; min: number; max: number; onChange: (v: number) => void }) {
  const id = useId();
  return (
    <div className="field models-field--num">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" value={value} step={step} min={min} max={max} onChange={(e) => onChange(Number(e.target.value))} />
    </div>
  );
}

/** True while the socket delivers pushed frames (else the page polls). */
function useOnline(): boolean {
  return useAtomValue(socketStateAtom) === 'online';
}

/** A training's log: read again at each pushed change of the training (`tick`), or polled while the socket is down. */
function Log({ taskId, live, tick }: { taskId: string; live: boolean; tick: string }) {
  const t = useT();
  const online = useOnline();
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    let on = true;
    void training.log(api, taskId).then((l) => on && setLines(l), () => {});
    return () => {
      on = false;
    };
  }, [taskId, tick]);
  useEffect(() => {
    if (!live || online) return;
    let on = true;
    const timer = setInterval(() => void training.log(api, taskId).then((l) => on && setLines(l), () => {}), POLL_MS);
    return () => {
      on = false;
      clearInterval(timer);
    };
  }, [taskId, live, online]);
  return <pre className="models-log" data-testid="train-log" aria-label={t('models.train.log')}>{lines.length > 0 ? lines.join('\n') : t('models.train.logEmpty')}</pre>;
}

function Running({ s }: { s: TrainState }) {
  const t = useT();
  const href = useModelsHref();
  const [open, setOpen] = useState(false);
  const done = s.status === TaskStatus.Done;
  return (
    <li className="panel models-training" data-testid="training" data-status={s.status}>
      <p>
        <strong>{s.name || s.task_id}</strong> · {t(done ? 'models.train.done' : s.status === TaskStatus.Ended ? 'models.train.failed' : s.status === TaskStatus.Running ? 'models.train.running' : 'models.train.queued')}
      </p>
      <progress max={100} value={done ? 100 : s.percent} aria-label={t('models.train.progress')} /> {done ? 100 : s.percent}%
      {s.reason && <p className="form-error">{s.reason}</p>}
      <div className="models-actions">
        {done && s.model_id && (
          <Link className="button button--primary" to={href({ view: 'detail', id: s.model_id }, s.model_ver_no ? `?ver=${encodeURIComponent(s.model_ver_no)}` : '')}>
            {t('models.train.open')}
          </Link>
        )}
        <button type="button" className="button" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {t('models.train.log')}
        </button>
      </div>
      {open && <Log taskId={s.task_id} live={!isFinished(s)} tick={`${s.status}:${s.percent}`} />}
    </li>
  );
}

/** Merges fresh progress into the list (names and model ids kept when the fresh answer lacks them). */
function merge(list: TrainState[], fresh: TrainState[]): TrainState[] {
  return list.map((c) => {
    const f = fresh.find((x) => x.task_id === c.task_id);
    return f ? { ...c, ...f, name: f.name || c.name, model_id: f.model_id ?? c.model_id, model_ver_no: f.model_ver_no ?? c.model_ver_no } : c;
  });
}

/**
 * Trainings of this account: those in progress at load, and those started
 * here; kept live by pushed task frames, with `batch-progress` read when
 * one starts or ends, after a lossy resume, when the socket comes back, and
 * every POLL_MS while it is not online.
 */
function useTrainings(): [TrainState[], (s: TrainState) => void] {
  const online = useOnline();
  const [list, setList] = useState<TrainState[]>([]);
  const current = useRef<TrainState[]>([]);
  useEffect(() => {
    current.current = list;
  }, [list]);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const read = useCallback((ids: string[]) => {
    if (ids.length === 0) return;
    training.progress(api, ids).then(
      (fresh) => mounted.current && setList((cur) => merge(cur, fresh)),
      () => {},
    );
  }, []);
  const readOpen = useCallback(() => read(current.current.filter((x) => !isFinished(x)).map((x) => x.task_id)), [read]);
  useEffect(() => {
    training.inProgress(api).then(
      (l) => mounted.current && setList((now) => [...l.filter((x) => !now.some((n) => n.task_id === x.task_id)), ...now]),
      () => {},
    );
  }, []);
  useEffect(
    () =>
      listenTrainings({
        onState: (s) => {
          const known = current.current.find((x) => x.task_id === s.task_id);
          if (!known || isFinished(known)) return;
          setList((cur) => merge(cur, [s]));
          // The server applies a finished training's result (the new version) when its progress is read.
          if (isFinished(s)) read([s.task_id]);
        },
        onResync: readOpen,
      }),
    [read, readOpen],
  );
  useEffect(() => {
    if (online) {
      // Frames sent while the socket was away are not replayed here: read once.
      readOpen();
      return;
    }
    const timer = setInterval(readOpen, POLL_MS);
    return () => clearInterval(timer);
  }, [online, readOpen]);
  const started = useCallback(
    (s: TrainState) => {
      setList((now) => [s, ...now]);
      // Frames may have come before the page knew the task: read it once.
      read([s.task_id]);
    },
    [read],
  );
  return [list, started];
}

export function TrainPage() {
  const t = useT();
  const location = useAtomValue(locationAtom);
  const families = useFamilies();
  const [sets, setSets] = useState<Dataset[]>([]);
  const [templates, setTemplates] = useState<DatasetTemplate[]>([]);
  const [mine, setMine] = useState<ModelView[]>([]);
  const [form, setForm] = useState<TrainForm>(() => ({ ...EMPTY_TRAIN, dataset_id: new URLSearchParams(location.search).get('dataset_id') ?? '' }));
  const [estimated, setEstimated] = useState<{ body: string; estimate: Estimate } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [trainings, started] = useTrainings();
  const ids = { ds: useId(), model: useId(), name: useId(), base: useId(), res: useId(), opt: useId(), trig: useId() };

  useEffect(() => {
    // The dataset named in the address brings its kind's suggested parameters once both are known.
    Promise.all([datasets.list(api), datasets.templates(api).catch(() => [] as DatasetTemplate[])]).then(([list, tpl]) => {
      setSets(list);
      setTemplates(tpl);
      setForm((f) => withTemplate(f, tpl.find((x) => x.kind === list.find((d) => d.dataset_id === f.dataset_id)?.kind)));
    }, setError);
    myModels(api, null).then((p) => setMine(p.items.filter((m) => m.model_type === 'lora')), () => {});
  }, []);

  const ds = sets.find((d) => d.dataset_id === form.dataset_id);
  const images = ds?.image_count ?? ds?.images.length ?? 0;
  /** Choosing a dataset brings its kind's suggested parameters. */
  function chooseDataset(id: string) {
    const kind = sets.find((d) => d.dataset_id === id)?.kind;
    setForm((f) => withTemplate({ ...f, dataset_id: id }, templates.find((x) => x.kind === kind)));
  }

  const problem = trainProblem(form, images);
  const body = useMemo(() => JSON.stringify(form), [form]);
  useEffect(() => {
    if (problem !== null) return;
    let on = true;
    const timer = setTimeout(() => training.estimate(api, JSON.parse(body) as TrainForm).then((estimate) => on && setEstimated({ body, estimate }), (e: unknown) => on && setError(e)), 300);
    return () => {
      on = false;
      clearTimeout(timer);
    };
  }, [body, problem]);
  const estimate = problem === null && estimated?.body === body ? estimated.estimate : null;

  const set = (p: Partial<TrainForm>) => setForm((f) => ({ ...f, ...p }));
  async function start() {
    setBusy(true);
    setError(null);
    try {
      const r = await training.create(api, form);
      started({ task_id: r.task_id, status: TaskStatus.Queued, percent: 0, model_id: r.model_id, model_ver_no: r.model_ver_no, name: form.name || mine.find((m) => m.model_id === form.model_id)?.name || '', reason: null });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="models-train" data-testid="train-page">
      <form
        className="panel models-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <h1>{t('models.train.title')}</h1>
        <div className="field">
          <label htmlFor={ids.ds}>{t('models.train.dataset')}</label>
          <select id={ids.ds} value={form.dataset_id} onChange={(e) => chooseDataset(e.target.value)}>
            <option value="">{t('models.train.chooseDataset')}</option>
            {sets.map((d) => (
              <option key={d.dataset_id} value={d.dataset_id}>
                {d.name} ({t('models.datasets.images', { n: d.image_count })})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.model}>{t('models.train.into')}</label>
          <select id={ids.model} value={form.model_id} onChange={(e) => set({ model_id: e.target.value })}>
            <option value="">{t('models.train.newModel')}</option>
            {mine.map((m) => (
              <option key={m.model_id} value={m.model_id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        {form.model_id === '' && (
          <div className="field">
            <label htmlFor={ids.name}>{t('models.form.name')}</label>
            <input id={ids.name} value={form.name} maxLength={80} onChange={(e) => set({ name: e.target.value })} />
          </div>
        )}
        <div className="field">
          <label htmlFor={ids.base}>{t('models.base')}</label>
          <select id={ids.base} value={form.base_model} onChange={(e) => set({ base_model: e.target.value, resolution: defaultResolution(e.target.value) })}>
            {families.map((f) => (
              <option key={f.id} value={f.id}>
                {f.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.trig}>{t('models.train.trigger')}</label>
          <input id={ids.trig} value={form.trigger_word} maxLength={40} placeholder={t('models.train.triggerHelp')} onChange={(e) => set({ trigger_word: e.target.value })} />
        </div>
        <div className="models-params">
          <NumberField label={t('models.train.epochs')} value={form.epochs} step={1} min={1} max={100} onChange={(v) => set({ epochs: v })} />
          <NumberField label={t('models.train.repeats')} value={form.repeats} step={1} min={1} max={100} onChange={(v) => set({ repeats: v })} />
          <div className="field models-field--num">
            <label htmlFor={ids.res}>{t('models.train.resolution')}</label>
            <select id={ids.res} value={form.resolution} onChange={(e) => set({ resolution: Number(e.target.value) })}>
              {RESOLUTIONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </div>
          <NumberField label={t('models.train.dim')} value={form.network_dim} step={1} min={1} max={128} onChange={(v) => set({ network_dim: v })} />
          <NumberField label={t('models.train.alpha')} value={form.network_alpha} step={1} min={1} max={128} onChange={(v) => set({ network_alpha: v })} />
          <NumberField label={t('models.train.lr')} value={form.learning_rate} step={0.00001} min={0.00001} max={0.01} onChange={(v) => set({ learning_rate: v })} />
          <NumberField label={t('models.train.batch')} value={form.batch_size} step={1} min={1} max={8} onChange={(v) => set({ batch_size: v })} />
          <div className="field models-field--num">
            <label htmlFor={ids.opt}>{t('models.train.optimizer')}</label>
            <select id={ids.opt} value={form.optimizer} onChange={(e) => set({ optimizer: e.target.value })}>
              {OPTIMIZERS.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p data-testid="train-estimate">
          {t('models.train.steps', { n: totalSteps(images, form) })}
          {estimate && ` · ${t('models.train.cost', { cost: credits(t, estimate.credits) })}`}
          {estimate?.seconds ? ` · ${t('models.train.time', { min: Math.max(1, Math.round(estimate.seconds / 60)) })}` : ''}
        </p>
        {problem && form.dataset_id !== '' && <p className="muted" data-testid="train-problem">{t('models.train.problem', { field: FIELD_LABELS[problem] ? t(FIELD_LABELS[problem]) : problem })}</p>}
        <ErrorLine error={error} />
        <button type="submit" className="button button--primary" disabled={busy || problem !== null || images === 0} data-testid="train-start">
          {t('models.train.start')}
        </button>
      </form>
      <section aria-label={t('models.train.list')}>
        <h2>{t('models.train.list')}</h2>
        {trainings.length === 0 && <p className="muted">{t('models.train.none')}</p>}
        <ul className="models-trainings">
          {trainings.map((s) => (
            <Running key={s.task_id} s={s} />
          ))}
        </ul>
      </section>
    </div>
  );
}
