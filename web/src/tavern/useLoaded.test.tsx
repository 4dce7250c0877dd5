// The tavern's load-on-mount hook: the answer lands in state, loading tracks the current deps,
// answers after unmount, after a deps change or after a reload are dropped, errors surface,
// reload reads again, setValue edits the value until the next answer.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLoaded } from './useLoaded';
import type { LoadedValue } from './useLoaded';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A promise settled by hand. */
interface Pending<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function pending<T>(): Pending<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

let container: HTMLDivElement;
let root: Root;
let mounted: boolean;
/** What the hook returned on each render. */
let seen: Array<LoadedValue<string>>;
/** One pending answer per call of `load`, with the id it was asked for. */
let loads: Array<{ id: string } & Pending<string>>;

function load(id: string): Promise<string> {
  const p = pending<string>();
  loads.push({ id, ...p });
  return p.promise;
}

function Probe({ id }: { id: string }) {
  seen.push(useLoaded(() => load(id), [id], 'initial'));
  return null;
}

function render(id: string) {
  act(() => root.render(<Probe id={id} />));
}

function last(): LoadedValue<string> {
  const r = seen.at(-1);
  if (!r) throw new Error('never rendered');
  return r;
}

/** Settles a load and lets React apply what it sets. */
async function settle(run: () => void) {
  await act(async () => {
    run();
    await Promise.resolve();
  });
}

beforeEach(() => {
  seen = [];
  loads = [];
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  mounted = true;
});

afterEach(() => {
  if (mounted) act(() => root.unmount());
  container.remove();
});

describe('useLoaded', () => {
  it('starts with the initial value, loading, and lands the answer', async () => {
    render('a');
    expect(loads.map((l) => l.id)).toEqual(['a']);
    expect(last()).toMatchObject({ value: 'initial', loading: true, failed: false });
    await settle(() => loads[0]!.resolve('A'));
    expect(last()).toMatchObject({ value: 'A', loading: false, failed: false, error: undefined });
  });

  it('without an initial value starts undefined', async () => {
    const got: Array<LoadedValue<number | undefined>> = [];
    function Bare() {
      got.push(useLoaded(() => Promise.resolve(7), []));
      return null;
    }
    act(() => root.render(<Bare />));
    expect(got[0]!.value).toBeUndefined();
    await settle(() => undefined);
    expect(got.at(-1)!.value).toBe(7);
  });

  it('ignores an answer that arrives after unmount', async () => {
    const errors = vi.spyOn(console, 'error');
    render('a');
    const renders = seen.length;
    act(() => root.unmount());
    mounted = false;
    await settle(() => loads[0]!.resolve('A'));
    await settle(() => undefined);
    expect(seen.length).toBe(renders);
    expect(last().value).toBe('initial');
    expect(errors).not.toHaveBeenCalled();
  });

  it('ignores a failure that arrives after unmount', async () => {
    const errors = vi.spyOn(console, 'error');
    render('a');
    const renders = seen.length;
    act(() => root.unmount());
    mounted = false;
    await settle(() => loads[0]!.reject(new Error('late')));
    expect(seen.length).toBe(renders);
    expect(errors).not.toHaveBeenCalled();
  });

  it('drops the answer for old deps that arrives after the new one', async () => {
    render('a');
    render('b');
    expect(loads.map((l) => l.id)).toEqual(['a', 'b']);
    expect(last().loading).toBe(true);
    await settle(() => loads[1]!.resolve('B'));
    expect(last()).toMatchObject({ value: 'B', loading: false });
    await settle(() => loads[0]!.resolve('A'));
    expect(last()).toMatchObject({ value: 'B', loading: false });
  });

  it('drops the answer for old deps that arrives first, and stays loading for the new ones', async () => {
    render('a');
    await settle(() => loads[0]!.resolve('A'));
    render('b');
    // The old value stays on show while the new deps load.
    expect(last()).toMatchObject({ value: 'A', loading: true });
    render('c');
    await settle(() => loads[1]!.resolve('B'));
    expect(last()).toMatchObject({ value: 'A', loading: true });
    await settle(() => loads[1]!.reject(new Error('too late')));
    expect(last()).toMatchObject({ value: 'A', loading: true, failed: false });
    await settle(() => loads[2]!.resolve('C'));
    expect(last()).toMatchObject({ value: 'C', loading: false });
  });

  it('surfaces a failure, keeps the value, and clears the failure with the next answer', async () => {
    render('a');
    await settle(() => loads[0]!.resolve('A'));
    render('b');
    const boom = new Error('boom');
    await settle(() => loads[1]!.reject(boom));
    expect(last()).toMatchObject({ value: 'A', loading: false, failed: true });
    expect(last().error).toBe(boom);
    // Another load keeps the failure on show until it answers.
    render('c');
    expect(last()).toMatchObject({ failed: true, loading: true });
    await settle(() => loads[2]!.resolve('C'));
    expect(last()).toMatchObject({ value: 'C', loading: false, failed: false, error: undefined });
  });

  it('reload reads again with the same deps and only the newest reload answers', async () => {
    render('a');
    await settle(() => loads[0]!.reject(new Error('down')));
    const reload = last().reload;
    act(() => reload());
    expect(loads.map((l) => l.id)).toEqual(['a', 'a']);
    expect(last()).toMatchObject({ loading: true, failed: true });
    act(() => last().reload());
    expect(loads).toHaveLength(3);
    // reload is one function for the life of the component.
    expect(last().reload).toBe(reload);
    await settle(() => loads[2]!.resolve('third'));
    expect(last()).toMatchObject({ value: 'third', loading: false, failed: false });
    await settle(() => loads[1]!.resolve('second'));
    expect(last().value).toBe('third');
  });

  it('setValue edits the value until the next answer replaces it', async () => {
    render('a');
    await settle(() => loads[0]!.resolve('A'));
    act(() => last().setValue((v) => `${v}!`));
    expect(last()).toMatchObject({ value: 'A!', loading: false });
    act(() => last().reload());
    expect(last().value).toBe('A!');
    await settle(() => loads[1]!.resolve('A2'));
    expect(last().value).toBe('A2');
  });

  it('does not read again when a render keeps the same deps', async () => {
    render('a');
    render('a');
    await settle(() => loads[0]!.resolve('A'));
    render('a');
    expect(loads).toHaveLength(1);
    expect(last()).toMatchObject({ value: 'A', loading: false });
  });
});
