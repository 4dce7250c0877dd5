import { useId } from 'react';
import type { ReactNode } from 'react';
import { useT } from '../i18n/useT';
import { AdvancedFields, NIterField } from './AdvancedFields';
import { centredMargins, FRAMES_MAX, MAX_OUTPUT_SIDE } from './config';
import type { ImageInput } from './config';
import { ControlNetSummary } from './ControlNetPopup';
import { ImageField } from './ImageField';
import { LoraPicker } from './LoraPicker';
import { MaskPainter } from './MaskPainter';
import { LookPicker, ModelPicker } from './ModelPicker';
import { PromptInput } from './PromptInput';
import { SizePicker } from './SizePicker';
import { useWorkspace } from './useWorkspace';

/** A labelled number input. */
function NumberField(props: { label: string; value: number; min: number; max: number; step?: number; onChange: (v: number) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="number"
        min={props.min}
        max={props.max}
        step={props.step ?? 1}
        value={props.value}
        onChange={(e) => props.onChange(Number(e.currentTarget.value) || 0)}
      />
    </div>
  );
}

/** A labelled range with its value shown. */
function RangeField(props: { label: string; value: number; min: number; max: number; step: number; onChange: (v: number) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <div className="gen-inline">
        <input
          id={id}
          type="range"
          min={props.min}
          max={props.max}
          step={props.step}
          value={props.value}
          onChange={(e) => props.onChange(Number(e.currentTarget.value))}
        />
        <output className="gen-num">{props.value.toFixed(2)}</output>
      </div>
    </div>
  );
}

/** The tab's main image input. */
function MainImage({ label, onSet }: { label?: string; onSet?: (img: ImageInput | null) => void }) {
  const t = useT();
  const { config, update, key } = useWorkspace();
  return (
    <ImageField
      slot={`${key}:image`}
      label={label ?? t('gen.image')}
      value={config.image}
      onChange={(image) => (onSet ? onSet(image) : update({ image, mask: '' }))}
    />
  );
}

function ModelAndLoras() {
  return (
    <>
      <ModelPicker />
      <LoraPicker />
    </>
  );
}

function Starter() {
  const { role } = useWorkspace();
  return (
    <>
      <PromptInput withNegative={false} />
      <LookPicker />
      {role !== 'visitor' && <NIterField />}
    </>
  );
}

function TextToImage({ studioTools = false }: { studioTools?: boolean }) {
  return (
    <>
      <PromptInput editor={studioTools} />
      <ModelAndLoras />
      <SizePicker />
      <AdvancedFields />
    </>
  );
}

function ImageToImage() {
  const t = useT();
  const { config, update, key } = useWorkspace();
  return (
    <>
      <MainImage />
      {config.image && (
        <MaskPainter key={config.image.url} image={config.image} slot={`${key}:mask`} onMask={(mask) => update({ mask })} />
      )}
      <PromptInput />
      <RangeField label={t('gen.denoising')} value={config.denoising} min={0} max={1} step={0.05} onChange={(denoising) => update({ denoising })} />
      <ModelAndLoras />
      <SizePicker />
      <AdvancedFields />
    </>
  );
}

function Condition() {
  return (
    <>
      <ControlNetSummary />
      <PromptInput />
      <ModelAndLoras />
      <SizePicker />
      <AdvancedFields />
    </>
  );
}

function Upscale() {
  const t = useT();
  const id = useId();
  const { catalogue, config, update } = useWorkspace();
  const out = config.image
    ? { w: Math.round(config.image.width * config.scalingRatio), h: Math.round(config.image.height * config.scalingRatio) }
    : null;
  return (
    <>
      <MainImage />
      <RangeField label={t('gen.ratio')} value={config.scalingRatio} min={1} max={4} step={0.5} onChange={(scalingRatio) => update({ scalingRatio })} />
      <div className="field">
        <label htmlFor={id}>{t('gen.upscaler')}</label>
        <select id={id} className="gen-select" value={config.upScaler} onChange={(e) => update({ upScaler: e.currentTarget.value })}>
          {catalogue.upscalers.map((u) => (
            <option key={u.name} value={u.name}>
              {u.name}
            </option>
          ))}
        </select>
      </div>
      {out && (
        <p className={out.w > MAX_OUTPUT_SIDE || out.h > MAX_OUTPUT_SIDE ? 'form-error' : 'muted gen-small'}>
          {t('gen.outputSize', { width: out.w, height: out.h })}
        </p>
      )}
    </>
  );
}

function Preview() {
  const t = useT();
  const id = useId();
  const { catalogue, config, update } = useWorkspace();
  return (
    <>
      <MainImage />
      <div className="field">
        <label htmlFor={id}>{t('gen.cn.module')}</label>
        <select
          id={id}
          className="gen-select"
          value={config.control.module}
          onChange={(e) => {
            const module = e.currentTarget.value;
            update((c) => ({ ...c, control: { ...c.control, module } }));
          }}
        >
          {catalogue.control_modules.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

/** Expansion canvas: 25% more on each side, multiples of 8, at most 4096. */
function expandedCanvas(img: ImageInput): { width: number; height: number } {
  const grow = (v: number) => Math.min(MAX_OUTPUT_SIDE, Math.round((v * 1.5) / 8) * 8);
  return { width: grow(img.width), height: grow(img.height) };
}

function Expansion() {
  const t = useT();
  const { config, update } = useWorkspace();
  const img = config.image;
  const maxLeft = img ? Math.max(0, config.width - img.width) : 0;
  const maxUp = img ? Math.max(0, config.height - img.height) : 0;
  return (
    <>
      <MainImage
        onSet={(image) =>
          update((c) => {
            if (!image) return { ...c, image: null };
            const canvas = expandedCanvas(image);
            const m = centredMargins(canvas, image);
            return { ...c, image, ...canvas, leftMargin: m.left, upMargin: m.up };
          })
        }
      />
      <PromptInput />
      <fieldset className="gen-fieldset">
        <legend>{t('gen.canvas')}</legend>
        <div className="gen-row">
          <NumberField label={t('gen.width')} value={config.width} min={1} max={MAX_OUTPUT_SIDE} step={8} onChange={(width) => update({ width })} />
          <NumberField label={t('gen.height')} value={config.height} min={1} max={MAX_OUTPUT_SIDE} step={8} onChange={(height) => update({ height })} />
        </div>
        <div className="gen-row">
          <NumberField label={t('gen.marginLeft')} value={config.leftMargin} min={0} max={maxLeft} onChange={(leftMargin) => update({ leftMargin: Math.min(leftMargin, maxLeft) })} />
          <NumberField label={t('gen.marginUp')} value={config.upMargin} min={0} max={maxUp} onChange={(upMargin) => update({ upMargin: Math.min(upMargin, maxUp) })} />
          {img && (
            <button
              type="button"
              className="button gen-row__button"
              onClick={() => {
                const m = centredMargins(config, img);
                update({ leftMargin: m.left, upMargin: m.up });
              }}
            >
              {t('gen.centre')}
            </button>
          )}
        </div>
      </fieldset>
      <ModelAndLoras />
      <AdvancedFields />
    </>
  );
}

function FaceSwap() {
  const t = useT();
  const { config, update, key } = useWorkspace();
  return (
    <>
      <div className="gen-two">
        <MainImage label={t('gen.faceTarget')} />
        <ImageField slot={`${key}:source`} label={t('gen.faceSource')} value={config.faceSource} onChange={(faceSource) => update({ faceSource })} />
      </div>
      <RangeField label={t('gen.faceDistance')} value={config.faceDistance} min={0} max={3} step={0.1} onChange={(faceDistance) => update({ faceDistance })} />
    </>
  );
}

function Animation() {
  const t = useT();
  const { config, update } = useWorkspace();
  return (
    <>
      <MainImage />
      <PromptInput />
      <NumberField
        label={t('gen.frames')}
        value={config.frames}
        min={1}
        max={FRAMES_MAX}
        onChange={(frames) => update({ frames: Math.min(FRAMES_MAX, Math.max(1, Math.round(frames))) })}
      />
      <ModelAndLoras />
    </>
  );
}

function ImageOnly({ withModel }: { withModel?: boolean }) {
  return (
    <>
      <MainImage />
      {withModel && <ModelPicker />}
    </>
  );
}

/** The active tab's fields. */
export function TabFields(): ReactNode {
  const { tab } = useWorkspace();
  switch (tab) {
    case 'SIMPLE':
      return <Starter />;
    case 'textToImage':
      return <TextToImage />;
    case 'promptStudio':
      return <TextToImage studioTools />;
    case 'imageToImage':
      return <ImageToImage />;
    case 'conditionToImage':
      return <Condition />;
    case 'extraUpscale':
      return <Upscale />;
    case 'descriptors':
      return <ImageOnly />;
    case 'preview':
      return <Preview />;
    case 'expansion':
      return <Expansion />;
    case 'faceSwap':
      return <FaceSwap />;
    case 'animGen':
      return <Animation />;
    case 'characterRepair':
      return <ImageOnly withModel />;
  }
}
