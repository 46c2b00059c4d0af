import { CircleAlert, Info, X } from 'lucide-react';
import { useToastStore, type Toast } from '../../stores/toast-store.js';
import './toasts.css';

/** Bottom-right stack of toasts; errors wait to be dismissed, notices fade. */
export function ToastViewport() {
  const toasts = useToastStore((s) => s.toasts);
  return (
    <div className="toast-viewport" aria-label="Notifications">
      {toasts.map((toast) => (
        <ToastCard key={toast.id} toast={toast} />
      ))}
    </div>
  );
}

function ToastCard({ toast }: { readonly toast: Toast }) {
  const dismiss = useToastStore((s) => s.dismiss);
  const Icon = toast.kind === 'error' ? CircleAlert : Info;
  return (
    <div
      className="toast"
      data-testid="toast"
      data-kind={toast.kind}
      role={toast.kind === 'error' ? 'alert' : 'status'}
    >
      <Icon size={16} strokeWidth={2} className="toast-icon" aria-hidden="true" />
      <p className="toast-message">{toast.message}</p>
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
