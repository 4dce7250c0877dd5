import { useId } from 'react';
import type { VideoParams } from '../api/video';
import type { CameraModeLabel } from '../api/video';
import { ImageField } from '../generator/ImageField';
import { PromptFields } from '../generator/PromptFields';
import { useT } from '../i18n/useT';
import { uploadPrefix } from './generate';
import {
  CAMERA_MODES,
  CAMERA_OFFSET_MAX,
  CAMERA_OFFSET_MIN,
  fixedDuration,
  modelOf,
  modelsForTab,
  qualityLocked,
  templateOf,
  withModel,
  withTemplate,
} from './model';
import { useVideo } from './useVideo';

/** The active tab's inputs (spec 2 §4): model, images, prompt, size, duration, quality, camera, count, seed. */
export function VideoFields({ params }: { params: VideoParams }) {
  const { tab } = useVideo(params);
  return (
    <div className="video-fields">
      {tab === 'effect' ? <EffectFields params={params} /> : <ModelFields params={params} />}
    </div>
  );
}

function ModelFields({ params }: { params: VideoParams }) {
  const t = useT();
  const modelId = useId();
  const { tab, config, update, caller } = useVideo(params);
  const models = modelsForTab(params, tab);
  const model = modelOf(params, config.modelNo);
  const slot = (name: string) => `${uploadPrefix(tab)}:${name}`;
  return (
    <>
      <div className="field">
        <label htmlFor={modelId}>{t('video.model')}</label>
        <select className="gen-select"
          id={modelId}
          value={config.modelNo}
          onChange={(e) => {
            const m = modelOf(params, e.currentTarget.value);
            if (m) update((c) => withModel(c, m, caller));
          }}
        >
          {models.map((m) => (
            <option key={m.model_no} value={m.model_no}>
              {m.name}
            </option>
          ))}
        </select>
      </div>
      {tab === 'img2video' && (
        <div className="video-frames">
          <ImageField
            slot={slot('first')}
            label={model !== null && model.frame_ctl >= 2 ? t('video.firstFrame') : t('video.image')}
            value={config.firstFrame}
            onChange={(firstFrame) => update({ firstFrame })}
          />
          {model !== null && model.frame_ctl >= 2 && (
            <ImageField slot={slot('last')} label={t('video.lastFrame')} value={config.lastFrame} onChange={(lastFrame) => update({ lastFrame })} />
          )}
        </div>
      )}
      {tab === 'img2Live2d' && (
        <ImageField slot={slot('live2d')} label={t('video.live2dImage')} value={config.firstFrame} onChange={(firstFrame) => update({ firstFrame })} />
      )}
      {tab === 'multiImg2video' && (
        <div className="video-slots">
          {config.images.map((img, i) => (
            <ImageField
              key={i}
              slot={slot(`multi${i}`)}
              label={t('video.slot', { index: i + 1 })}
              value={img}
              onChange={(v) => update((c) => ({ ...c, images: c.images.map((x, j) => (j === i ? v : x)) }))}
            />
          ))}
        </div>
      )}
      <PromptFields
        prompt={config.prompt}
        negative={config.negative}
        withNegative={config.enableNegative}
        onChange={(prompt, negative) => update({ prompt, negative })}
      />
      {model?.negative_prompt && (
        <label className="video-check">
          <input type="checkbox" checked={config.enableNegative} onChange={(e) => update({ enableNegative: e.currentTarget.checked })} />
          {t('video.enableNegative')}
        </label>
      )}
      {model && <ModelOptions params={params} />}
    </>
  );
}

function ModelOptions({ params }: { params: VideoParams }) {
  const t = useT();
  const durationId = useId();
  const qualityId = useId();
  const nIterId = useId();
  const cameraId = useId();
  const offsetId = useId();
  const seedId = useId();
  const { tab, config, update, caller } = useVideo(params);
  const model = modelOf(params, config.modelNo);
  if (!model) return null;
  const fixed = fixedDuration(
    model,
    tab === 'img2video' && model.frame_ctl >= 2 && config.lastFrame !== null,
    tab === 'multiImg2video' ? config.images.filter((i) => i !== null).length : config.firstFrame ? 1 : 0,
  );
  const camera = model.camera_control && (tab === 'img2video' || tab === 'txt2video');
  return (
    <div className="video-options">
      <fieldset className="gen-fieldset">
        <legend>{t('gen.size')}</legend>
        <div className="video-choices" role="radiogroup" aria-label={t('gen.aspect')}>
          {model.resolution_param.options.map((o) => {
            const on = o.width === config.width && o.height === config.height;
            return (
              <button
                key={`${o.width}x${o.height}`}
                type="button"
                role="radio"
                aria-checked={on}
                className={on ? 'video-choice is-on' : 'video-choice'}
                onClick={() => update({ width: o.width, height: o.height, aspectRatio: o.aspect_ratio })}
              >
                <span>{o.aspect_ratio}</span>
                <span className="muted gen-small">
                  {o.width}×{o.height}
                </span>
              </button>
            );
          })}
        </div>
      </fieldset>
      <div className="video-row">
        <div className="field">
          <label htmlFor={durationId}>{t('video.duration')}</label>
          <select className="gen-select"
            id={durationId}
            value={fixed ?? config.duration}
            disabled={fixed !== null || model.duration_ctl.options.length < 2}
            onChange={(e) => update({ duration: Number(e.currentTarget.value), durationChosen: true })}
          >
            {model.duration_ctl.options.map((d) => (
              <option key={d} value={d}>
                {d === model.duration_ctl.default ? t('video.secondsDefault', { n: d }) : t('video.seconds', { n: d })}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={nIterId}>{t('video.nIter')}</label>
          <select className="gen-select" id={nIterId} value={config.nIter} disabled={model.n_iter_max < 2} onChange={(e) => update({ nIter: Number(e.currentTarget.value) })}>
            {Array.from({ length: model.n_iter_max }, (_, i) => i + 1).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        {model.quality_modes.length > 0 && (
          <div className="field">
            <label htmlFor={qualityId}>{t('video.quality')}</label>
            <select className="gen-select" id={qualityId} value={config.quality ?? ''} onChange={(e) => update({ quality: e.currentTarget.value })}>
              {model.quality_modes.map((q) => (
                <option key={q} value={q}>
                  {qualityLocked(q, caller.role) ? t('video.qualityMembers', { quality: q }) : q}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor={seedId}>{t('video.seed')}</label>
          <input
            id={seedId}
            type="text"
            inputMode="numeric"
            value={config.seed}
            placeholder={t('video.seedRandom')}
            onChange={(e) => update({ seed: e.currentTarget.value.replace(/[^0-9]/g, '') })}
          />
        </div>
      </div>
      {camera && (
        <div className="video-row">
          <div className="field">
            <label htmlFor={cameraId}>{t('video.camera')}</label>
            <select className="gen-select"
              id={cameraId}
              value={config.cameraMode ?? ''}
              onChange={(e) => update({ cameraMode: e.currentTarget.value === '' ? null : (e.currentTarget.value as CameraModeLabel) })}
            >
              <option value="">{t('video.cameraNone')}</option>
              {CAMERA_MODES.map((m) => (
                <option key={m} value={m}>
                  {t(`video.cameraMode.${m}`)}
                </option>
              ))}
            </select>
          </div>
          {config.cameraMode !== null && (
            <div className="field">
              <label htmlFor={offsetId}>{t('video.cameraOffset', { n: config.cameraOffset })}</label>
              <input
                id={offsetId}
                type="range"
                min={CAMERA_OFFSET_MIN}
                max={CAMERA_OFFSET_MAX}
                step={1}
                value={config.cameraOffset}
                onChange={(e) => update({ cameraOffset: Number(e.currentTarget.value) })}
              />
            </div>
          )}
        </div>
      )}
    </div>
  );
}

function EffectFields({ params }: { params: VideoParams }) {
  const t = useT();
  const { tab, config, update } = useVideo(params);
  const template = templateOf(params, config.templateId);
  return (
    <>
      <fieldset className="gen-fieldset">
        <legend>{t('video.effect')}</legend>
        <div className="video-choices" role="radiogroup" aria-label={t('video.effect')}>
          {params.effects.map((e) => (
            <button
              key={e.id}
              type="button"
              role="radio"
              aria-checked={e.id === config.templateId}
              className={e.id === config.templateId ? 'video-choice is-on' : 'video-choice'}
              onClick={() => update((c) => withTemplate(c, e))}
            >
              <span>{e.name}</span>
              <span className="muted gen-small">{t('video.effectFacts', { inputs: e.inputs, seconds: e.duration, credits: e.credits })}</span>
            </button>
          ))}
        </div>
      </fieldset>
      {template && (
        <div className="video-slots">
          {config.images.slice(0, template.inputs).map((img, i) => (
            <ImageField
              key={`${template.id}-${i}`}
              slot={`${uploadPrefix(tab)}:effect${i}`}
              label={t('video.slot', { index: i + 1 })}
              value={img}
              onChange={(v) => update((c) => ({ ...c, images: c.images.map((x, j) => (j === i ? v : x)) }))}
            />
          ))}
        </div>
      )}
      <PromptFields prompt={config.prompt} negative="" withNegative={false} onChange={(prompt) => update({ prompt })} />
    </>
  );
}
