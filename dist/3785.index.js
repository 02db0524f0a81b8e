var N=Object.defineProperty;var a=(k,$)=>N(k,"name",{value:$,configurable:!0});const x=3785,B=[3785,5456],U={3785:((k,$,h)=>{h.d($,{publishChanges:a(()=>o,"publishChanges")});var w=h(1922),u=h(7360);const I={name:"github-actions[bot]",email:"41898282+github-actions[bot]@users.noreply.github.com"},y=a(e=>({GIT_AUTHOR_NAME:e.name,GIT_AUTHOR_EMAIL:e.email,GIT_COMMITTER_NAME:e.name,GIT_COMMITTER_EMAIL:e.email}),"identityEnv"),A=a(e=>`Co-authored-by: ${e} <${e}@users.noreply.github.com>`,"coAuthorTrailer");async function R(e){return(await(0,u.F6)(e,["status","--porcelain","--untracked-files=all"])).length>0}a(R,"readHasChanges");async function D(e,n){if(!await R(e))return;await(0,u.F6)(e,["add","-A"]);const l=n.coAuthor?`

${A(n.coAuthor)}`:"",c=`${n.subject}${n.body?`

${n.body}`:""}${l}
`;return await(0,u.F6)(e,["-c","commit.gpgsign=false","commit","-q","--no-verify","-F","-"],{input:c,env:y(n.identity??I)}),(0,u.F6)(e,["rev-parse","HEAD"])}a(D,"commitWorktree");async function v(e,n,l){const{remote:c}=l,p=`HEAD:refs/heads/${n}`,f=await(0,u.EO)(e,["push","-q","--porcelain","--no-verify",u.Kx,p],{remote:c});if(f.code===0)return{sha:await(0,u.F6)(e,["rev-parse","HEAD"]),rebased:!1};if(!_(f.stderr+f.stdout.toString("utf8")))throw new w.Yv("general",`git push to ${n} failed: ${f.stderr.trim()}`);if(await(0,u.F6)(e,["fetch","-q","--no-tags",u.Kx,`refs/heads/${n}`],{remote:c}),(await(0,u.EO)(e,["-c","commit.gpgsign=false","rebase","-q","FETCH_HEAD"],{env:y(l.identity??I)})).code!==0)throw await(0,u.EO)(e,["rebase","--abort"]),new w.Yv("general",`${n} moved while the agent worked and its changes conflict with ours; nothing was pushed`);const g=await(0,u.EO)(e,["push","-q","--porcelain","--no-verify",u.Kx,p],{remote:c});if(g.code!==0)throw new w.Yv("general",`git push to ${n} was rejected twice: ${g.stderr.trim()}`);return{sha:await(0,u.F6)(e,["rev-parse","HEAD"]),rebased:!0}}a(v,"pushHead");const _=a(e=>/\[rejected\]|non-fast-forward|fetch first|\[remote rejected\].*(stale|cannot lock)/i.test(e),"isRejection");async function F(e,n,l){return(await(0,u.EO)(e,["ls-remote","--exit-code","--heads",u.Kx,`refs/heads/${n}`],{remote:l})).code===0}a(F,"readRemoteBranchExists");var E=h(780),L=h(8249);async function C(e){const n=e.linkIssue!==!1&&e.issue.number>0,l=(0,E.jA)(n?`Fix #${e.issue.number}: ${s(e.issue.title)}`:s(e.issue.title)),c=await O(e.root,e.issue,e.remote);if(await(0,u.F6)(e.root,["checkout","-q","-b",c]),!await D(e.root,{subject:l,coAuthor:e.requester}))return{status:"no_changes"};await v(e.root,c,{remote:e.remote});try{const{data:f}=await e.octokit.rest.pulls.create({...e.repo,head:c,base:e.baseBranch,title:l,body:`${(0,L.v)((0,E.RU)(e.summary.trim(),e.mentions))}${n?`

Fixes #${e.issue.number}`:""}

Requested by @${e.requester}.`});return{status:"opened",branch:c,pullRequest:f.number,url:f.html_url}}catch(f){return{status:"pushed",branch:c,error:(0,w.bD)(f)}}}a(C,"publishIssueFix");async function O(e,n,l){const c=i(n.title),p=n.number>0?`agent-action/issue-${n.number}${c?`-${c}`:""}`:`agent-action/task-${c||"change"}`;for(let f=1;f<100;f++){const m=f===1?p:`${p}-${f}`;if(!await F(e,m,l))return m}return`${p}-${Date.now()}`}a(O,"pickBranchName");const i=a(e=>e.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g,"").replace(/[^a-z0-9]+/g,"-").replace(/^-+|-+$/g,"").slice(0,40).replace(/-+$/,""),"slugOf"),s=a(e=>e.replace(/\s+/g," ").trim().slice(0,100),"oneLine");var r=h(5456);async function o(e,n){if(!await R(e.workspace))return;const{result:l,problems:c,finalText:p,mentions:f}=n,m=e.thread,g=n.info?.pull;await e.log.group("publish: changes",async()=>{try{if(g&&!g.isFork)await D(e.workspace,{subject:t(n.task,m?.number),body:(0,E.RU)(p.slice(0,2e3)),coAuthor:e.requester.login}),await v(e.workspace,g.headRef,{remote:e.remote}),l.branch=g.headRef;else if(g?.isFork){await(0,u.F6)(e.workspace,["add","-A","--intent-to-add"]);const T=await(0,u.F6)(e.workspace,["diff","-U0","--no-color","--no-ext-diff","--no-textconv","HEAD"]),b=await(0,u.F6)(e.workspace,["diff","--no-color","--no-ext-diff","--no-textconv","--binary","HEAD"]),M=await(0,r.readPullDiffSides)(e.octokit,e.repo,m.number),{comments:H,rest:j}=(0,r.Jg)(T,M),W=j.length?`This pull request comes from a fork, which this workflow cannot push to. The rest of the change:

${(0,r.mi)(b)}`:void 0,P=await(0,r.publishReview)({octokit:e.octokit,repo:e.repo,pull:m.number,commitId:g.headSha,summary:p,comments:H,files:M,appendix:W,mentions:f});l.reviewId=P.reviewId}else{const T=m?n.info?.context.title??`issue ${m.number}`:n.task.instructions??"agent-action task",b=await C({octokit:e.octokit,repo:e.repo,root:e.workspace,issue:{number:m?.number??0,title:T},baseBranch:await d(e),requester:e.requester.login,summary:p,linkIssue:!!m,mentions:f,remote:e.remote});b.status!=="no_changes"&&(l.branch=b.branch),b.status==="opened"&&(l.pullRequest=b.pullRequest),b.status==="pushed"&&c.push(`The branch \`${b.branch}\` was pushed, but the pull request could not be opened: ${b.error}`)}}catch(T){c.push(`Publishing the changes failed: ${(0,w.bD)(T)}`)}})}a(o,"publishChanges");const t=a((e,n)=>`agent-action: ${e.command}${n?` (#${n})`:""}${e.instructions?`: ${e.instructions.split(`
`)[0].slice(0,60)}`:""}`,"commitSubject");async function d(e){const{data:n}=await e.octokit.rest.repos.get({...e.repo});return n.default_branch}a(d,"readDefaultBranch")}),5456:((k,$,h)=>{h.d($,{Jg:a(()=>C,"Jg"),mi:a(()=>O,"mi"),publishReview:a(()=>F,"publishReview"),readPullDiffSides:a(()=>_,"readPullDiffSides")});var w=h(5849),u=h(780),I=h(9781),y=h(8249);function A(i){const s={LEFT:new Set,RIGHT:new Set};let r=0,o=0;for(const t of i.split(`
`)){const d=/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(t);d?(r=Number(d[1]),o=Number(d[2])):t.startsWith("+")?s.RIGHT.add(o++):t.startsWith("-")?s.LEFT.add(r++):t.startsWith(" ")&&(s.LEFT.add(r++),s.RIGHT.add(o++))}return s}a(A,"parsePatchLines");function R(i,s,r){const o={inline:[],outside:[]};for(const t of i.slice(0,w.Lx.reviewComments)){const d=t.side??"RIGHT",e=s.get(t.path)?.[d],n=t.startLine!==void 0&&t.startLine<t.line?t.startLine:void 0,l=(0,u.RU)(t.body,r),c=t.suggestion!==void 0?`${l}

${D(t.suggestion)}`:l;e!==void 0&&e.has(t.line)&&(n===void 0||v(e,n,t.line))?o.inline.push({path:t.path,line:t.line,side:d,...n!==void 0?{start_line:n,start_side:d}:{},body:c}):o.outside.push(`**${(0,u.jA)(`${t.path}:${n!==void 0?`${n}-`:""}${t.line}`)}**

${c}`)}return o}a(R,"planReview");function D(i){const s=i.replace(/\n$/,""),r=(0,u.Lt)(s);return`${r}suggestion
${s}
${r}`}a(D,"suggestionBlock");const v=a((i,s,r)=>{for(let o=s;o<=r;o++)if(!i.has(o))return!1;return!0},"rangeIn");async function _(i,s,r){const o=await i.paginate(i.rest.pulls.listFiles,{...s,pull_number:r,per_page:100});return new Map(o.map(t=>[t.filename,A(t.patch??"")]))}a(_,"readPullDiffSides");async function F(i){const s=R(i.comments,i.files,i.mentions),r=s.outside.length?`

#### Findings outside the diff

${s.outside.join(`

---

`)}`:"",o=`${(0,u.RU)(i.summary.trim(),i.mentions)||"Review by agent-action."}${r}${i.appendix?`

${i.appendix}`:""}`,{data:t}=await i.octokit.rest.pulls.createReview({...i.repo,pull_number:i.pull,event:"COMMENT",body:(0,y.v)(o),...i.commitId?{commit_id:i.commitId}:{},comments:E(s.inline)});return{reviewId:t.id,inline:s.inline.length,outside:s.outside.length}}a(F,"publishReview");function E(i){return i.map(s=>({...s,body:`${(0,y.v)(s.body)}

${(0,I.gJ)("review-comment")}`}))}a(E,"markedInline");function L(i){const s=[];let r="",o;for(const t of i.split(`
`))if(t.startsWith("diff --git "))o=void 0,r="";else if(t.startsWith("+++ "))r=t.slice(4).replace(/^b\//,"");else{if(t.startsWith("--- "))continue;if(t.startsWith("@@")){const d=/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(t);if(!d)continue;o={path:r,oldStart:Number(d[1]),oldCount:d[2]===void 0?1:Number(d[2]),newLines:[],text:`${t}
`},s.push(o)}else o&&(t.startsWith("+")||t.startsWith("-")||t.startsWith("\\"))&&(o.text+=`${t}
`,t.startsWith("+")&&o.newLines.push(t.slice(1)))}return s}a(L,"parseZeroContextDiff");function C(i,s){const r=[],o=[];for(const t of L(i)){const d=s.get(t.path)?.RIGHT,e=t.oldStart+t.oldCount-1;t.path!=="/dev/null"&&t.oldCount>0&&d&&v(d,t.oldStart,e)?r.push({path:t.path,line:e,startLine:t.oldCount>1?t.oldStart:void 0,body:"Suggested change:",suggestion:t.newLines.join(`
`)}):o.push(`--- a/${t.path}
+++ b/${t.path}
${t.text}`)}return{comments:r,rest:o}}a(C,"suggestionsFromDiff");function O(i){const s=i.replace(/\n$/,""),r=(0,u.Lt)(s);return`<details><summary>Patch (apply with <code>git apply</code>)</summary>

${r}diff
${s}
${r}

</details>`}a(O,"collapsedPatch")})};export{x as id,B as ids,U as modules};
