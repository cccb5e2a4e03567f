/* The job on its ways out of the plugin (no DOM): prepared by the engine (jobs/prepare.js's prepareJob,
 * as `prereq job resolve` does), then posted to the rest-server as text (comments kept) or handed to
 * the portal's submission page (comments lost).
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

export const HANDOVER_KEY = "marketItem";
export const SUBMISSION_PAGE = "/submit.html";

/* As the old marketplace's "Use": the submission page builds its form from localStorage.marketItem. */
export function handOver(storage, data) {
  const copy = JSON.parse(JSON.stringify(data));
  if (copy.extras && typeof copy.extras === "object") delete copy.extras.submitFrom;
  storage.setItem(HANDOVER_KEY, JSON.stringify(copy));
  return SUBMISSION_PAGE;
}
