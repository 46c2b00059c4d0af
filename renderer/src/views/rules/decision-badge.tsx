/** allow / ask / forbid, coloured the same everywhere rules appear. */
export function DecisionBadge({ decision }: { readonly decision: 'allow' | 'prompt' | 'forbidden' }) {
  const label = decision === 'allow' ? 'allow' : decision === 'prompt' ? 'ask' : 'forbid';
  return (
    <span className="decision-badge" data-decision={decision}>
      {label}
    </span>
  );
}
