import { useLayoutEffect, useState, type CSSProperties, type RefObject } from 'react';

const GAP = 4;
const MARGIN = 8;
/** Laid out but invisible while its size is measured; opacity (not visibility) so it can take focus. */
const MEASURING: CSSProperties = { position: 'fixed', top: 0, left: 0, opacity: 0 };

/** Which edge of the trigger the popover lines up with. */
export type PopoverAlign = 'start' | 'end';

/**
 * Places a popover under its trigger, aligned with its right edge (or left,
 * with `align: 'start'`), flipping above when it would leave the window.
 * Fixed positioning keeps it out of scroll clipping.
 */
export function usePopoverPosition(
  open: boolean,
  trigger: RefObject<HTMLElement | null>,
  popover: RefObject<HTMLElement | null>,
  align: PopoverAlign = 'end',
): CSSProperties {
  const [style, setStyle] = useState<CSSProperties>(MEASURING);

  useLayoutEffect(() => {
    if (!open || !trigger.current || !popover.current) {
      setStyle(MEASURING);
      return;
    }
    const anchor = trigger.current.getBoundingClientRect();
    const box = popover.current.getBoundingClientRect();
    const below = anchor.bottom + GAP;
    const top = below + box.height > window.innerHeight - MARGIN ? anchor.top - GAP - box.height : below;
    const wanted = align === 'end' ? anchor.right - box.width : anchor.left;
    const left = Math.min(Math.max(MARGIN, wanted), window.innerWidth - box.width - MARGIN);
    setStyle({ position: 'fixed', top: Math.max(MARGIN, top), left });
  }, [open, trigger, popover, align]);

  return style;
}
