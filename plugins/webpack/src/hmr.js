// dbg-bridge-webpack-plugin's entry (development only): tells the dbg-bridge page client each status of webpack's
// hot runtime, so page_list counts applied hot updates and page_wait {update: N} can wait for the next one after the count N an answer gave.
/* global module, window, CustomEvent */
if (typeof module !== 'undefined' && module.hot && typeof window !== 'undefined') {
  const say = (status) => window.dispatchEvent(new CustomEvent('dbg:dev', { detail: { server: 'webpack', status } }));
  module.hot.addStatusHandler(say);
  say('hooked');
}
