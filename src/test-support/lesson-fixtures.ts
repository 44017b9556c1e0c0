/** The one-hunk fix of the "reading and searching" lesson (its discount bound), as tests apply it. */
export const PRICING_FIX_PATCH = `--- a/src/pricing.js
+++ b/src/pricing.js
@@ -6,3 +6,3 @@
 export function applyDiscount(total, percent) {
-  if (percent < 0 || percent > 1000) {
+  if (percent < 0 || percent > 100) {
     throw new RangeError(\`discount must be between 0 and 100, got \${percent}\`);
`;
