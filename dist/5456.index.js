var D=Object.defineProperty;var d=(f,c)=>D(f,"name",{value:c,configurable:!0});const T=5456,C=[5456],M={5456:((f,c,r)=>{r.d(c,{Jg:d(()=>W,"Jg"),mi:d(()=>x,"mi"),publishReview:d(()=>E,"publishReview"),readPullDiffSides:d(()=>y,"readPullDiffSides")});var _=r(5849),u=r(780),$=r(9781),p=r(8249);function L(t){const e={LEFT:new Set,RIGHT:new Set};let i=0,s=0;for(const n of t.split(`
`)){const o=/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(n);o?(i=Number(o[1]),s=Number(o[2])):n.startsWith("+")?e.RIGHT.add(s++):n.startsWith("-")?e.LEFT.add(i++):n.startsWith(" ")&&(e.LEFT.add(i++),e.RIGHT.add(s++))}return e}d(L,"parsePatchLines");function b(t,e,i){const s={inline:[],outside:[]};for(const n of t.slice(0,_.Lx.reviewComments)){const o=n.side??"RIGHT",a=e.get(n.path)?.[o],l=n.startLine!==void 0&&n.startLine<n.line?n.startLine:void 0,m=(0,u.RU)(n.body,i),g=n.suggestion!==void 0?`${m}

${v(n.suggestion)}`:m;a!==void 0&&a.has(n.line)&&(l===void 0||h(a,l,n.line))?s.inline.push({path:n.path,line:n.line,side:o,...l!==void 0?{start_line:l,start_side:o}:{},body:g}):s.outside.push(`**${(0,u.jA)(`${n.path}:${l!==void 0?`${l}-`:""}${n.line}`)}**

${g}`)}return s}d(b,"planReview");function v(t){const e=t.replace(/\n$/,""),i=(0,u.Lt)(e);return`${i}suggestion
${e}
${i}`}d(v,"suggestionBlock");const h=d((t,e,i)=>{for(let s=e;s<=i;s++)if(!t.has(s))return!1;return!0},"rangeIn");async function y(t,e,i){const s=await t.paginate(t.rest.pulls.listFiles,{...e,pull_number:i,per_page:100});return new Map(s.map(n=>[n.filename,L(n.patch??"")]))}d(y,"readPullDiffSides");async function E(t){const e=b(t.comments,t.files,t.mentions),i=e.outside.length?`

#### Findings outside the diff

${e.outside.join(`

---

`)}`:"",s=`${(0,u.RU)(t.summary.trim(),t.mentions)||"Review by agent-action."}${i}${t.appendix?`

${t.appendix}`:""}`,{data:n}=await t.octokit.rest.pulls.createReview({...t.repo,pull_number:t.pull,event:"COMMENT",body:(0,p.v)(s),...t.commitId?{commit_id:t.commitId}:{},comments:R(e.inline)});return{reviewId:n.id,inline:e.inline.length,outside:e.outside.length}}d(E,"publishReview");function R(t){return t.map(e=>({...e,body:`${(0,p.v)(e.body)}

${(0,$.gJ)("review-comment")}`}))}d(R,"markedInline");function w(t){const e=[];let i="",s;for(const n of t.split(`
`))if(n.startsWith("diff --git "))s=void 0,i="";else if(n.startsWith("+++ "))i=n.slice(4).replace(/^b\//,"");else{if(n.startsWith("--- "))continue;if(n.startsWith("@@")){const o=/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(n);if(!o)continue;s={path:i,oldStart:Number(o[1]),oldCount:o[2]===void 0?1:Number(o[2]),newLines:[],text:`${n}
`},e.push(s)}else s&&(n.startsWith("+")||n.startsWith("-")||n.startsWith("\\"))&&(s.text+=`${n}
`,n.startsWith("+")&&s.newLines.push(n.slice(1)))}return e}d(w,"parseZeroContextDiff");function W(t,e){const i=[],s=[];for(const n of w(t)){const o=e.get(n.path)?.RIGHT,a=n.oldStart+n.oldCount-1;n.path!=="/dev/null"&&n.oldCount>0&&o&&h(o,n.oldStart,a)?i.push({path:n.path,line:a,startLine:n.oldCount>1?n.oldStart:void 0,body:"Suggested change:",suggestion:n.newLines.join(`
`)}):s.push(`--- a/${n.path}
+++ b/${n.path}
${n.text}`)}return{comments:i,rest:s}}d(W,"suggestionsFromDiff");function x(t){const e=t.replace(/\n$/,""),i=(0,u.Lt)(e);return`<details><summary>Patch (apply with <code>git apply</code>)</summary>

${i}diff
${e}
${i}

</details>`}d(x,"collapsedPatch")})};export{T as id,C as ids,M as modules};
