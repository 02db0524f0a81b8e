var B=Object.defineProperty;var i=(m,l)=>B(m,"name",{value:l,configurable:!0});const U=4812,y=[4812],R={4812:((m,l,t)=>{t.d(l,{answerInputErrors:i(()=>O,"answerInputErrors")});var u=t(1922),d=t(2649),h=t(9990),f=t(8537),M=t(6186),P=t(9781),v=t(8249),D=t(780),p=t(9835);async function O(n){const{settings:e,runner:o}=n;if(!e.githubToken)return;const r=n.command??await w(e,o);if(!r||r.kind==="skip"||!r.trigger.thread)return;const s=r.trigger.thread;try{const{createGitHubClient:a}=await Promise.all([t.e(9059),t.e(9479)]).then(t.bind(t,9479)),c=a({token:e.githubToken,baseUrl:o.apiUrl,secrets:n.secrets,log:n.log.info,pacing:o.pacing,retryAfterBaseMs:n.retryAfterBaseMs}),g=o.repository;if(!(await(0,d.Gq)(c,g,{allowedBots:e.allowedBots,selfLogins:d.Qk,trigger:r.trigger})).allowed)return;const _=A(n.messages,o),E=r.trigger.comment;E?.kind==="review"?await c.rest.pulls.createReplyForReviewComment({...g,pull_number:s.number,comment_id:(0,p.VE)(E),body:_}):await c.rest.issues.createComment({...g,issue_number:s.number,body:_})}catch(a){n.log.warning(`could not answer the input errors in #${s.number}: ${(0,u.bD)(a)}`)}}i(O,"answerInputErrors");async function w(n,e){const o=await(0,f.z)(e.eventPath);if(o.ok)return(0,h.C)(e.eventName,o.payload,{...n,trigger:n.trigger||M.WJ.trigger})}i(w,"routeForAnswer");function A(n,e){const o=n.map(a=>`- ${(0,D.RU)(a.replace(/\s+/g," "))}`).join(`
`),r=e.runId?` ([workflow run](${e.serverUrl}/${e.repository.owner}/${e.repository.repo}/actions/runs/${e.runId}))`:"",s=`### agent-action did not run

The workflow's inputs for agent-action have ${n.length===1?"a problem":"problems"}, so nothing was done${r}:

${o}

Someone who maintains the workflow fixes it (the \`with:\` of its agent-action step, or a secret it reads); then ask again.`;return`${(0,v.v)(s)}

${(0,P.gJ)("input-error")}`}i(A,"renderAnswer")})};export{U as id,y as ids,R as modules};
