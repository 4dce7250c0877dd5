import { useEffect, useId, useRef, useState } from 'react';
import type { PointerEvent } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { uploadsAtom } from './atoms';
import type { ImageInput } from './config';
import { BRUSH_SIZES, hasPaint, MASK_UPLOAD_CATEGORY, maskSize, renderMaskPng, toMaskPoint } from './mask';
import { useUpload } from './useUpload';

interface Props {
  image: ImageInput;
  /** Upload slot of the mask. */
  slot: string;
  onMask: (url: string) => void;
}

/** Wait after the last stroke before the mask is uploaded. */
const UPLOAD_DELAY_MS = 600;

/**
 * Paint the area to redraw over the picture (brush, eraser, clear). After a
 * stroke the mask is rendered (painted area transparent, same size as the
 * picture, at most 4096 px a side) and uploaded as a PNG.
 */
export function MaskPainter({ image, slot, onMask }: Props) {
  const t = useT();
  const brushId = useId();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const last = useRef<{ x: number; y: number } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [tool, setTool] = useState<'brush' | 'eraser'>('brush');
  const [brush, setBrush] = useState<number>(BRUSH_SIZES[1]);
  const upload = useUpload();
  const state = useAtomValue(uploadsAtom)[slot];
  const size = maskSize(image.width, image.height);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  function ctx2d() {
    return canvasRef.current?.getContext('2d') ?? null;
  }

  function strokeTo(e: PointerEvent<HTMLCanvasElement>) {
    const canvas = canvasRef.current;
    const ctx = ctx2d();
    if (!canvas || !ctx) return;
    const rect = canvas.getBoundingClientRect();
    const p = toMaskPoint(e.clientX, e.clientY, rect, size);
    const from = last.current ?? p;
    ctx.globalCompositeOperation = tool === 'eraser' ? 'destination-out' : 'source-over';
    ctx.strokeStyle = '#5b4cf0';
    ctx.fillStyle = '#5b4cf0';
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.lineWidth = brush * (size.width / Math.max(1, rect.width));
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(p.x + 0.01, p.y);
    ctx.stroke();
    last.current = p;
  }

  function scheduleUpload() {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void send(), UPLOAD_DELAY_MS);
  }

  async function send() {
    const canvas = canvasRef.current;
    const ctx = ctx2d();
    if (!canvas || !ctx) return;
    if (!hasPaint(ctx.getImageData(0, 0, canvas.width, canvas.height).data)) {
      onMask('');
      return;
    }
    const png = await renderMaskPng(canvas);
    const url = await upload(slot, png, 'mask.png', MASK_UPLOAD_CATEGORY);
    // A failed upload leaves a mask that is not an uploaded URL: uploadError on generate.
    onMask(url ?? 'local:mask');
  }

  function clear() {
    const canvas = canvasRef.current;
    ctx2d()?.clearRect(0, 0, canvas?.width ?? 0, canvas?.height ?? 0);
    if (timer.current) clearTimeout(timer.current);
    onMask('');
  }

  const uploading = state !== undefined && !state.failed;
  return (
    <div className="gen-mask">
      <div className="gen-mask__tools" role="toolbar" aria-label={t('gen.mask.tools')}>
        <button type="button" className="button" aria-pressed={tool === 'brush'} onClick={() => setTool('brush')}>
          {t('gen.mask.brush')}
        </button>
        <button type="button" className="button" aria-pressed={tool === 'eraser'} onClick={() => setTool('eraser')}>
          {t('gen.mask.eraser')}
        </button>
        <button type="button" className="button" onClick={clear}>
          {t('gen.mask.clear')}
        </button>
        <label className="gen-inline" htmlFor={brushId}>
          {t('gen.mask.size')}
          <select id={brushId} className="gen-select" value={brush} onChange={(e) => setBrush(Number(e.currentTarget.value))}>
            {BRUSH_SIZES.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="gen-mask__stage">
        <img className="gen-mask__img" src={image.url} alt="" />
        <canvas
          ref={canvasRef}
          className="gen-mask__canvas"
          width={size.width}
          height={size.height}
          aria-label={t('gen.mask.canvas')}
          data-testid="mask-canvas"
          onPointerDown={(e) => {
            e.currentTarget.setPointerCapture(e.pointerId);
            last.current = null;
            strokeTo(e);
          }}
          onPointerMove={(e) => {
            if (e.buttons & 1) strokeTo(e);
          }}
          onPointerUp={() => {
            last.current = null;
            scheduleUpload();
          }}
        />
      </div>
      <p className="muted gen-small">
        {t('gen.mask.hint', { width: size.width, height: size.height })}
      </p>
      {uploading && (
        <div className="gen-progress">
          <progress max={100} value={Math.round(state.fraction * 100)} aria-label={t('gen.mask.uploading')} />
        </div>
      )}
    </div>
  );
}
