export const id = 479;
export const ids = [479];
export const modules = {

/***/ 9479:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   createGitHubClient: () => (/* binding */ createGitHubClient)
/* harmony export */ });
/* harmony import */ var _actions_github_lib_utils__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(5250);
/* harmony import */ var _octokit_plugin_retry__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(9735);
/* harmony import */ var _octokit_plugin_throttling__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6856);
/* harmony import */ var _redact_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(65);
/**
 * The GitHub client, composed once: Octokit with the REST methods, retry (5xx) and throttling
 * (primary and secondary rate limits, waiting `retry-after`) plugins, the runner's API URL, and one
 * hook that logs each request and redacts secrets from every body the action posts.
 *
 * Importing this module evaluates `@actions/github`, which reads GITHUB_EVENT_PATH at once (its
 * `context`); main.ts imports it only after it has read and checked the event file itself.
 */




const Client = _actions_github_lib_utils__WEBPACK_IMPORTED_MODULE_0__/* .GitHub */ .gq.plugin(_octokit_plugin_retry__WEBPACK_IMPORTED_MODULE_1__/* .retry */ .L, _octokit_plugin_throttling__WEBPACK_IMPORTED_MODULE_2__/* .throttling */ .A);
/** A Bottleneck group stand-in that schedules at once: no pacing against a loopback server. */
const immediateGroup = {
    key: () => ({ schedule: (_opts, fn, ...args) => Promise.resolve(fn(...args)) }),
};
function createGitHubClient(opts) {
    const log = opts.log ?? (() => { });
    const base = opts.retryAfterBaseMs ?? 1000;
    const retriesAllowed = opts.retries ?? 3;
    const pacing = opts.pacing === 'none' ? { write: immediateGroup, notifications: immediateGroup } : {};
    const octokit = new Client({
        ...(0,_actions_github_lib_utils__WEBPACK_IMPORTED_MODULE_0__/* .getOctokitOptions */ .EG)(opts.token, { baseUrl: opts.baseUrl }),
        retry: { retryAfterBaseValue: base, retries: retriesAllowed },
        throttle: {
            ...pacing,
            retryAfterBaseValue: base,
            // Each wait is logged; retry a few times, then let the error surface to the caller.
            onRateLimit: (after, o, _k, count) => {
                log(`rate limited on ${o.method} ${o.url}; retry ${count + 1} in ${after}s`);
                return count < retriesAllowed;
            },
            onSecondaryRateLimit: (after, o, _k, count) => {
                log(`secondary rate limit on ${o.method} ${o.url}; retry ${count + 1} in ${after}s`);
                return count < retriesAllowed;
            },
        },
    });
    octokit.hook.before('request', (options) => {
        for (const key of ['body', 'title', 'message']) {
            const value = options[key];
            if (typeof value === 'string')
                options[key] = (0,_redact_js__WEBPACK_IMPORTED_MODULE_3__/* .redact */ .E)(value, opts.secrets);
        }
        const comments = options.comments;
        if (Array.isArray(comments)) {
            for (const c of comments)
                if (typeof c.body === 'string')
                    c.body = (0,_redact_js__WEBPACK_IMPORTED_MODULE_3__/* .redact */ .E)(c.body, opts.secrets);
        }
        log(`github: ${options.method} ${options.url}`);
    });
    return octokit;
}


/***/ })

};
