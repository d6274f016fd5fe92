#!/usr/bin/env python3
"""MISRA C:2012 rule 15.7: every if ... else if chain ends with an else.
Lists the chains of the C files under FOLDER... that do not; with --fix,
adds `} else { /* otherwise nothing to do */ }`, which changes no code.
Run after braces.sh (it expects braced blocks).
Usage: final_else.py [--fix] FOLDER..."""
import re, os, sys
fix = '--fix' in sys.argv
dirs = [a for a in sys.argv[1:] if a != '--fix']
def strip(l):
    l=re.sub(r"'(\\.|[^'])'","''",l); l=re.sub(r'"(\\.|[^"])*"','""',l)
    return l.split('/*')[0].split('//')[0]
for d in dirs:
  for root,_,fs in os.walk(d):
    for f in fs:
      if not f.endswith(('.c', '.h')):
          continue
      p=os.path.join(root,f); L=open(p).read().split('\n'); ins=[]
      for i,l in enumerate(L):
        if re.match(r'\s*\} else if .*\{\s*(/\*.*\*/)?\s*$',l):
          depth=0; j=i
          # find the closing brace of this else-if block
          c=strip(l); depth=c.count('{')-c.count('}')+1  # line starts with '}' closing previous
          # depth now counts the open brace of else-if: compute properly
          depth=1; j=i+1
          while depth>0:
            c=strip(L[j]); 
            for ch in c:
              if ch=='{': depth+=1
              elif ch=='}':
                depth-=1
                if depth==0: break
            if depth==0: break
            j+=1
          if re.match(r'\s*\}\s*$',L[j]):
            print(p,j+1,L[i].strip()[:60]); ins.append(j)
          elif not re.match(r'\s*\} else',L[j]):
            print('ODD',p,j+1,L[j])
      if fix and ins:
        for j in sorted(ins,reverse=True):
          ind=re.match(r'\s*',L[j]).group(0)
          L[j:j+1]=[ind+'} else {', ind+'    /* otherwise nothing to do */', ind+'}']
        open(p,'w').write('\n'.join(L))
