/** `/{locale}/create`, `/create/{generateType}`, `/studio`: the generator workspace. */
export function GeneratorPage() {
  return <section className="generator" aria-label="Generator" />;
}
