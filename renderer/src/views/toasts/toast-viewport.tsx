import { BellRing, CircleAlert, CircleCheck, Info, X } from 'lucide-react';
import { useToastStore, type Toast } from '../../stores/toast-store.js';
import './toasts.css';

/**
 * Top-right stack of toasts, under the conversation header, so it never
 * covers the composer or its buttons. Toasts fade on their own (not while
 * hovered or focused); repeats show as one with a count.
 */
export function ToastViewport() {
  const toasts = useToastStore((s) => s.toasts);
  return (
    <div className="toast-viewport" role="region" aria-label="Notifications">
      {toasts.map((toast) => (
        <ToastCard key={toast.id} toast={toast} />
      ))}
    </div>
  );
}

const ICONS = { error: CircleAlert, notice: Info, done: CircleCheck, attention: BellRing } as const;

function ToastCard({ toast }: { readonly toast: Toast }) {
  const dismiss = useToastStore((s) => s.dismiss);
  const hold = useToastStore((s) => s.hold);
  const Icon = ICONS[toast.kind];
  return (
    <div
      className="toast"
      data-testid="toast"
      data-kind={toast.kind}
      data-count={toast.count}
      role={toast.kind === 'error' || toast.kind === 'attention' ? 'alert' : 'status'}
      onPointerEnter={() => hold(toast.id, true)}
      onPointerLeave={() => hold(toast.id, false)}
      onFocus={() => hold(toast.id, true)}
      onBlur={() => hold(toast.id, false)}
    >
      <Icon size={16} strokeWidth={2} className="toast-icon" aria-hidden="true" />
      <div className="toast-text">
        <p className="toast-message">
          {toast.message}
          {toast.count > 1 && (
            <span className="toast-count" data-testid="toast-count" aria-label={`shown ${toast.count} times`}>
              ×{toast.count}
            </span>
          )}
        </p>
        {toast.detail && <p className="toast-detail">{toast.detail}</p>}
      </div>
      {toast.action && (
        <button
          type="button"
          className="toast-action"
          onClick={() => {
            toast.action?.run();
            dismiss(toast.id);
          }}
        >
          {toast.action.label}
        </button>
      )}
      <button type="button" className="icon-button toast-close" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
        <X size={14} strokeWidth={2} aria-hidden="true" />
      </button>
    </div>
  );
}
