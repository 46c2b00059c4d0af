import { Check, ChevronDown, Cpu } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useConversationStore, useModelsStore, useSetupStore } from '../../services/services.js';
import { formatCompact } from '../../format/usage.js';
import { Popover } from '../common/popover.js';

/** The model of the next turn: the thread's provider's models, the thread's current one ticked. */
export function ModelPicker({ thread }: { readonly thread: Thread }) {
  const list = useModelsStore((s) => s.lists[thread.modelProvider]);
  const load = useModelsStore((s) => s.load);
  const choice = useConversationStore((s) => s.modelChoice[thread.id] ?? null);
  const chooseModel = useConversationStore((s) => s.chooseModel);
  const providerName = useSetupStore(
    (s) => s.config?.providers.find((p) => p.id === thread.modelProvider)?.name ?? thread.modelProvider,
  );
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);

  // The store drops its lists on reconnect and config changes; fetch again whenever ours is gone.
  useEffect(() => {
    if (!list) void load(thread.modelProvider);
  }, [list, load, thread.modelProvider]);

  const models = list?.status === 'ready' ? list.result.data : [];
  const fallback = models.find((m) => m.isDefault)?.id ?? null;
  const current = choice ?? thread.model ?? fallback;
  const currentName = models.find((m) => m.id === current)?.displayName ?? current ?? 'Default model';

  const pick = (model: string) => {
    chooseModel(thread.id, model === (thread.model ?? fallback) ? null : model);
    setOpen(false);
    trigger.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const options = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="menuitemradio"]')];
    const index = options.indexOf(document.activeElement as HTMLButtonElement);
    options[(index + (event.key === 'ArrowDown' ? 1 : -1) + options.length) % options.length]?.focus();
  };

  return (
    <>
      <button
        ref={trigger}
        type="button"
        className="composer-chip"
        data-testid="model-picker"
        aria-haspopup="menu"
        aria-expanded={open}
        title="Model for the next message"
        onClick={() => setOpen(!open)}
      >
        <Cpu size={13} strokeWidth={1.9} aria-hidden="true" />
        <span className="composer-chip-label">{currentName}</span>
        <ChevronDown size={13} strokeWidth={2} aria-hidden="true" />
      </button>
      <Popover
        open={open}
        anchor={trigger}
        onClose={() => setOpen(false)}
        label="Choose a model"
        className="model-menu"
        align="start"
      >
        <div role="menu" aria-label="Models" onKeyDown={onKeyDown}>
          <p className="model-menu-heading">{providerName} models</p>
          {list?.status === 'loading' && <p className="model-menu-note">Loading models…</p>}
          {list?.status === 'failed' && <p className="model-menu-note">{list.message}</p>}
          {list?.status === 'ready' && list.result.source === 'known' && list.result.error && (
            <p className="model-menu-note" title={list.result.error}>
              The provider did not answer; showing the models Wheelhouse knows.
            </p>
          )}
          {models.map((model) => (
            <button
              key={model.id}
              type="button"
              role="menuitemradio"
              aria-checked={model.id === current}
              className="model-option"
              data-testid="model-option"
              onClick={() => pick(model.id)}
            >
              <span className="model-option-check">{model.id === current && <Check size={14} strokeWidth={2.2} />}</span>
              <span className="model-option-text">
                <span className="model-option-name">{model.displayName}</span>
                {model.displayName !== model.id && <span className="model-option-id">{model.id}</span>}
              </span>
              <span className="model-option-tags">
                {model.reasoning && <span className="tag">reasoning</span>}
                {model.contextWindow !== null && <span className="tag">{formatCompact(model.contextWindow)}</span>}
              </span>
            </button>
          ))}
          {list?.status === 'ready' && models.length === 0 && <p className="model-menu-note">This provider lists no models.</p>}
        </div>
      </Popover>
    </>
  );
}
