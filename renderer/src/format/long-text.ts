/** A user message longer than this many lines or characters is shown folded. */
export const FOLD_LINES = 12;
export const FOLD_CHARS = 1_200;

/** The start of a long text to show folded, and how many lines it has; null when it is short enough to show whole. */
export function foldLongText(text: string): { readonly head: string; readonly totalLines: number } | null {
  let lines = 1;
  let cut = -1;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 10) continue;
    lines += 1;
    if (lines === FOLD_LINES + 1 && cut < 0) cut = i;
  }
  if (lines <= FOLD_LINES && text.length <= FOLD_CHARS) return null;
  const byLines = cut < 0 ? text.length : cut;
  return { head: text.slice(0, Math.min(byLines, FOLD_CHARS)).trimEnd(), totalLines: lines };
}
