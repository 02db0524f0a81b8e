var P=Object.defineProperty;var a=(b,f)=>P(b,"name",{value:f,configurable:!0});const O=372,C=[372,5456],W={372:((b,f,u)=>{u.d(f,{publishForkChanges:a(()=>D,"publishForkChanges")});var w=u(1922),m=u(7360),E=u(7885),g=u(780),_=u(9871),p=u(5456);const v=10,$=40,T=new Set(["100644","100755"]);function y(t,n,o){if(n.some(r=>r.status!=="M"||!r.mode||!T.has(r.mode)))return;const{comments:s,rest:e}=(0,p.Jg)(t,o),i=s.reduce((r,d)=>r+(d.suggestion===""?0:(d.suggestion??"").split(`
`).length),0),c=new Set(s.map(r=>r.path));if(!(e.length>0||s.length===0||s.length>v||i>$))return n.every(r=>c.has(r.path))?s:void 0}a(y,"planSuggestions");async function D(t,n){const{commit:o,pull:s,result:e}=n,i=t.workspace,c=await(0,E.YI)(i,o.parent,o.sha),r=await(0,m.F6)(i,["diff-tree","-r","-p","-U0","--no-renames","--no-color","--no-ext-diff","--no-textconv",o.parent,o.sha]),d=await(0,p.readPullDiffSides)(t.octokit,t.repo,s.number),h=y(r,c,d);if(h){const l=await(0,p.publishReview)({octokit:t.octokit,repo:t.repo,pull:s.number,commitId:o.parent,summary:n.finalText,comments:h,files:d,mentions:n.mentions});e.reviewId=l.reviewId,t.progress.note(`#${s.number} comes from a fork, which this workflow cannot push to: the change is in a review, as ${h.length===1?"a suggestion":`${h.length} suggestions`} to commit.`);return}try{const l=await(0,_.JZ)({octokit:t.octokit,repo:t.repo,root:i,remote:t.remote,secrets:t.secrets,branchBase:`agent-action/pr-${s.number}${(0,_.tF)(s.title)?`-${(0,_.tF)(s.title)}`:""}`,baseBranch:s.baseRef,title:(0,g.jA)(`${M(s.title)} (#${s.number}, with agent-action's change)`),body:R(t,n)});if(e.branch=l.branch,l.status==="pushed"){n.problems.push(`The branch \`${l.branch}\` was pushed, but the pull request could not be opened: ${l.error}`);return}e.pullRequest=l.pullRequest,t.progress.note(`#${s.number} comes from a fork, which this workflow cannot push to: the change is in #${l.pullRequest} (branch \`${l.branch}\` of this repository: #${s.number}'s commits with the agent's on top).`)}catch(l){n.problems.push(`The change could not be pushed to a branch of this repository: ${(0,w.bD)(l)}`),await I(t,n,{zeroContext:r,files:d})}}a(D,"publishForkChanges");function R(t,n){const{pull:o,commit:s}=n,e=(0,g.RU)(n.finalText.trim(),n.mentions);return`${e?`${e}

`:""}This is #${o.number} (its head, ${s.parent.slice(0,12)}) with agent-action's change on top: #${o.number} comes from a fork, which this workflow's token cannot push to. Merging this pull request merges #${o.number}'s commits and the change; merged with a merge commit, #${o.number}'s commits land as they are and GitHub closes it as merged.

Requested by @${t.requester.login}.`}a(R,"forkPullBody");async function I(t,n,o){const{zeroContext:s,files:e}=o,{commit:i,pull:c}=n;try{const r=await(0,m.F6)(t.workspace,["diff-tree","-r","-p","--binary","--no-renames","--no-color","--no-ext-diff","--no-textconv",i.parent,i.sha]),{comments:d}=(0,p.Jg)(s,e),h=`This pull request comes from a fork, which this workflow cannot push to. The whole change:

${(0,p.mi)(r)}`,l=await(0,p.publishReview)({octokit:t.octokit,repo:t.repo,pull:c.number,commitId:i.parent,summary:n.finalText,comments:d,files:e,appendix:h,mentions:n.mentions});n.result.reviewId=l.reviewId}catch(r){n.problems.push(`The review with the change could not be posted: ${(0,w.bD)(r)}`)}}a(I,"publishPatchReview");const M=a(t=>t.replace(/\s+/g," ").trim().slice(0,100),"oneLine")}),5456:((b,f,u)=>{u.d(f,{Jg:a(()=>I,"Jg"),mi:a(()=>M,"mi"),publishReview:a(()=>y,"publishReview"),readPullDiffSides:a(()=>T,"readPullDiffSides")});var w=u(5849),m=u(780),E=u(9781),g=u(8249);function _(t){const n={LEFT:new Set,RIGHT:new Set};let o=0,s=0;for(const e of t.split(`
`)){const i=/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(e);i?(o=Number(i[1]),s=Number(i[2])):e.startsWith("+")?n.RIGHT.add(s++):e.startsWith("-")?n.LEFT.add(o++):e.startsWith(" ")&&(n.LEFT.add(o++),n.RIGHT.add(s++))}return n}a(_,"parsePatchLines");function p(t,n,o){const s={inline:[],outside:[]};for(const e of t.slice(0,w.Lx.reviewComments)){const i=e.side??"RIGHT",c=n.get(e.path)?.[i],r=e.startLine!==void 0&&e.startLine<e.line?e.startLine:void 0,d=(0,m.RU)(e.body,o),h=e.suggestion!==void 0?`${d}

${v(e.suggestion)}`:d;c!==void 0&&c.has(e.line)&&(r===void 0||$(c,r,e.line))?s.inline.push({path:e.path,line:e.line,side:i,...r!==void 0?{start_line:r,start_side:i}:{},body:h}):s.outside.push(`**${(0,m.jA)(`${e.path}:${r!==void 0?`${r}-`:""}${e.line}`)}**

${h}`)}return s}a(p,"planReview");function v(t){const n=t.replace(/\n$/,""),o=(0,m.Lt)(n);return`${o}suggestion
${n}
${o}`}a(v,"suggestionBlock");const $=a((t,n,o)=>{for(let s=n;s<=o;s++)if(!t.has(s))return!1;return!0},"rangeIn");async function T(t,n,o){const s=await t.paginate(t.rest.pulls.listFiles,{...n,pull_number:o,per_page:100});return new Map(s.map(e=>[e.filename,_(e.patch??"")]))}a(T,"readPullDiffSides");async function y(t){const n=p(t.comments,t.files,t.mentions),o=n.outside.length?`

#### Findings outside the diff

${n.outside.join(`

---

`)}`:"",s=`${(0,m.RU)(t.summary.trim(),t.mentions)||"Review by agent-action."}${o}${t.appendix?`

${t.appendix}`:""}`,{data:e}=await t.octokit.rest.pulls.createReview({...t.repo,pull_number:t.pull,event:"COMMENT",body:(0,g.v)(s),...t.commitId?{commit_id:t.commitId}:{},comments:D(n.inline)});return{reviewId:e.id,inline:n.inline.length,outside:n.outside.length}}a(y,"publishReview");function D(t){return t.map(n=>({...n,body:`${(0,g.v)(n.body)}

${(0,E.gJ)("review-comment")}`}))}a(D,"markedInline");function R(t){const n=[];let o="",s;for(const e of t.split(`
`))if(e.startsWith("diff --git "))s=void 0,o="";else if(e.startsWith("+++ "))o=e.slice(4).replace(/^b\//,"");else{if(e.startsWith("--- "))continue;if(e.startsWith("@@")){const i=/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(e);if(!i)continue;s={path:o,oldStart:Number(i[1]),oldCount:i[2]===void 0?1:Number(i[2]),newLines:[],text:`${e}
`},n.push(s)}else s&&(e.startsWith("+")||e.startsWith("-")||e.startsWith("\\"))&&(s.text+=`${e}
`,e.startsWith("+")&&s.newLines.push(e.slice(1)))}return n}a(R,"parseZeroContextDiff");function I(t,n){const o=[],s=[];for(const e of R(t)){const i=n.get(e.path)?.RIGHT,c=e.oldStart+e.oldCount-1;e.path!=="/dev/null"&&e.oldCount>0&&i&&$(i,e.oldStart,c)?o.push({path:e.path,line:c,startLine:e.oldCount>1?e.oldStart:void 0,body:"Suggested change:",suggestion:e.newLines.join(`
`)}):s.push(`--- a/${e.path}
+++ b/${e.path}
${e.text}`)}return{comments:o,rest:s}}a(I,"suggestionsFromDiff");function M(t){const n=t.replace(/\n$/,""),o=(0,m.Lt)(n);return`<details><summary>Patch (apply with <code>git apply</code>)</summary>

${o}diff
${n}
${o}

</details>`}a(M,"collapsedPatch")})};export{O as id,C as ids,W as modules};
