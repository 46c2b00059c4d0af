/** Text whose `backticked` parts show as code (the runtime's reasons and scopes quote commands that way). */
export function InlineCode({ text }: { readonly text: string }) {
  const parts = text.split('`');
  // An odd count of backticks leaves the last one literal.
  if (parts.length % 2 === 0) return <>{text}</>;
  return <>{parts.map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>;
}
