// The editor's path after the locale: `/create/video/editor` (query `workspace` opens one).
export const EDITOR_PATH = '/create/video/editor';

export function isEditorPath(rest: string): boolean {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return path === EDITOR_PATH;
}

/** The editor's path with the workspace to open. */
export function editorPath(workspaceId: string | null = null): string {
  return workspaceId === null ? EDITOR_PATH : `${EDITOR_PATH}?workspace=${encodeURIComponent(workspaceId)}`;
}
