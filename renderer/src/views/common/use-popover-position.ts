import { useLayoutEffect, useState, type CSSProperties, type RefObject } from 'react';

const GAP = 4;
const MARGIN = 8;
/** Laid out but invisible while its size is measured; opacity (not visibility) so it can take focus. */
const MEASURING: CSSProperties = { position: 'fixed', top: 0, left: 0, opacity: 0 };

/**
 * Places a popover under its trigger, right-aligned, flipping above when it
 * would leave the window. Fixed positioning keeps it out of scroll clipping.
 */
export function usePopoverPosition(
  open: boolean,
  trigger: RefObject<HTMLElement | null>,
  popover: RefObject<HTMLElement | null>,
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
    const left = Math.min(Math.max(MARGIN, anchor.right - box.width), window.innerWidth - box.width - MARGIN);
    setStyle({ position: 'fixed', top: Math.max(MARGIN, top), left });
  }, [open, trigger, popover]);

  return style;
}
