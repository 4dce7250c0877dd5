// The shared yes/no dialog of the tavern: labelled buttons, focus on Cancel and back to the
// opener, Escape and the backdrop cancel, Tab stays inside, the danger variant, pending and error.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import { ConfirmDialog } from './ConfirmDialog';
import type { ConfirmDialogProps } from './ConfirmDialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let opener: HTMLButtonElement;

beforeEach(() => {
  opener = document.createElement('button');
  opener.textContent = 'Delete';
  document.body.append(opener);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  opener.remove();
});

function render(props: Partial<ConfirmDialogProps> = {}) {
  const onConfirm = vi.fn();
  const onCancel = vi.fn();
  const all: ConfirmDialogProps = { title: 'Delete this message?', message: 'It cannot be undone.', confirmLabel: 'Delete', onConfirm, onCancel, ...props };
  opener.focus();
  act(() => {
    root.render(
      <Provider store={appStore}>
        <ConfirmDialog {...all} />
      </Provider>,
    );
  });
  return { onConfirm: all.onConfirm, onCancel: all.onCancel };
}

function dialog(): HTMLElement {
  const el = container.querySelector<HTMLElement>('[role="dialog"]');
  if (!el) throw new Error('no dialog');
  return el;
}

function button(name: string): HTMLButtonElement {
  const found = [...dialog().querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? b.textContent) === name);
  if (!found) throw new Error(`no button ${name}`);
  return found;
}

function key(k: string, shiftKey = false) {
  act(() => {
    (document.activeElement ?? dialog()).dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true }));
  });
}

describe('ConfirmDialog', () => {
  it('is a modal dialog named by its title, with the message and labelled buttons', () => {
    render();
    const d = dialog();
    expect(d.getAttribute('aria-modal')).toBe('true');
    expect(document.getElementById(d.getAttribute('aria-labelledby') ?? '')?.textContent).toBe('Delete this message?');
    expect(d.querySelector('p')?.textContent).toBe('It cannot be undone.');
    expect(button('Close')).toBeTruthy();
    expect(button('Cancel')).toBeTruthy();
    expect(button('Delete').className).toBe('button button--primary');
  });

  it('starts on Cancel and gives focus back to the opener when it closes', () => {
    render();
    expect(document.activeElement).toBe(button('Cancel'));
    act(() => root.render(null));
    expect(document.activeElement).toBe(opener);
  });

  it('cancels with Escape, the ×, Cancel and the backdrop; confirms with the action button', () => {
    const { onConfirm, onCancel } = render();
    key('Escape');
    act(() => button('Close').click());
    act(() => button('Cancel').click());
    act(() => {
      dialog().parentElement?.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    });
    expect(onCancel).toHaveBeenCalledTimes(4);
    expect(onConfirm).not.toHaveBeenCalled();
    act(() => button('Delete').click());
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('keeps Tab inside the dialog', () => {
    render();
    button('Delete').focus();
    key('Tab');
    expect(document.activeElement).toBe(button('Close'));
    key('Tab', true);
    expect(document.activeElement).toBe(button('Delete'));
  });

  it('has a danger variant, a pending state and an error alert', () => {
    const { onConfirm } = render({ variant: 'danger', pending: true, error: 'Not found.' });
    const confirm = button('Delete');
    expect(confirm.className).toBe('button button--danger');
    expect(confirm.disabled).toBe(true);
    act(() => confirm.click());
    expect(onConfirm).not.toHaveBeenCalled();
    expect(dialog().querySelector('[role="alert"]')?.textContent).toBe('Not found.');
  });

  it('shows no alert without an error', () => {
    render();
    expect(dialog().querySelector('[role="alert"]')).toBeNull();
    expect(button('Delete').disabled).toBe(false);
  });
});
