// Shared models in the generator (issue 19 item 2): the picker's user models
// (`model/config-select`) joined to the built-in catalogue, LoRAs with their
// family and checkpoints shaped like the family's built-in ones, and the
// "use in generator" choice (`/create/image?model_ver_no=`): a checkpoint is
// selected; a LoRA is added (with a checkpoint of its family when the chosen
// one does not fit) and its trigger words start an empty prompt.
import type { Catalogue, Checkpoint, Lora } from '../generator/catalogue';
import { lorasFor } from '../generator/catalogue';
import { withCheckpoint } from '../generator/config';
import type { ConfigContext, TabConfig } from '../generator/config';
import { generatorPath } from '../router/routes';
import type { PickerEntry } from './api';
import { triggerText } from './format';

/** The catalogue with the user models added (each version once; built-in entries win). */
export function withUserModels(catalogue: Catalogue, entries: readonly PickerEntry[]): Catalogue {
  const knownLoras = new Set(catalogue.loras.map((l) => l.model_ver_no));
  const knownCks = new Set(catalogue.checkpoints.map((c) => c.model_ver_no));
  const loras: Lora[] = [];
  const checkpoints: Checkpoint[] = [];
  for (const e of entries) {
    const label = e.version_name ? `${e.name} · ${e.version_name}` : e.name;
    if (e.model_type === 'lora' && !knownLoras.has(e.model_ver_no)) {
      knownLoras.add(e.model_ver_no);
      loras.push({ model_id: e.model_id, model_ver_no: e.model_ver_no, name: label, base_model: e.base_model, weight: e.weight ?? 1, trained_words: e.trained_words ?? [] });
    } else if (e.model_type === 'checkpoint' && !knownCks.has(e.model_ver_no)) {
      // A checkpoint runs like the built-in ones of its family; a family the catalogue lacks cannot run.
      const like = catalogue.checkpoints.find((c) => c.family === e.base_model);
      if (!like) continue;
      knownCks.add(e.model_ver_no);
      checkpoints.push({ ...like, model_no: e.model_id, model_ver_no: e.model_ver_no, name: label, is_default: false });
    }
  }
  if (loras.length === 0 && checkpoints.length === 0) return catalogue;
  return { ...catalogue, loras: [...catalogue.loras, ...loras], checkpoints: [...catalogue.checkpoints, ...checkpoints] };
}

/**
 * A config with the model version `verNo` chosen: a checkpoint selected, or
 * a LoRA added at its weight (on a checkpoint of its family). Answers null
 * when the catalogue does not know the version or no checkpoint fits it.
 */
export function chooseModel(config: TabConfig, verNo: string, ctx: ConfigContext): TabConfig | null {
  const cat = ctx.catalogue;
  if (cat.checkpoints.some((c) => c.model_ver_no === verNo)) return withCheckpoint(config, verNo, ctx);
  const lora = cat.loras.find((l) => l.model_ver_no === verNo);
  if (!lora) return null;
  let next = config;
  const current = cat.checkpoints.find((c) => c.model_ver_no === config.modelVerNo);
  if (!current || (!ctx.studio && !lorasFor(cat, current.family).some((l) => l.model_ver_no === verNo))) {
    const fitting = cat.checkpoints.filter((c) => c.family === lora.base_model);
    const ck = fitting.find((c) => c.is_default) ?? fitting[0];
    if (!ck) return null;
    next = withCheckpoint(next, ck.model_ver_no, ctx);
  }
  if (!next.loras.some((l) => l.model_ver_no === verNo)) {
    next = { ...next, loras: [...next.loras, { model_id: lora.model_id, model_ver_no: lora.model_ver_no, name: lora.name, base_model: lora.base_model, weight: lora.weight }] };
  }
  const words = triggerText(lora.trained_words);
  if (next.prompt.trim() === '' && words !== '') next = { ...next, prompt: words };
  return next;
}

/** The generator's address that opens with this version chosen. */
export function generatorPathFor(verNo: string): string {
  return generatorPath({ mode: 'page', generateType: 'image', id: null, modelVerNo: verNo });
}
