package claims

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"regexp"
	"slices"
	"strconv"
)

// claimRef is a claim named in an expr claim's expression.
var claimRef = regexp.MustCompile(`\{([^{}]+)\}`)

// expr computes an expr claim: its expression over the computed values
// of the claims it names. seen holds the claims being computed, so that
// a cycle is an error, not a hang.
func (k *Checker) expr(c Claim, seen []string) (float64, error) {
	if slices.Contains(seen, c.ID) {
		return 0, fmt.Errorf("expr claims name each other: %v", append(seen, c.ID))
	}
	seen = append(seen, c.ID)
	if k.Claims == nil {
		cs, err := Read(k.Dir)
		if err != nil {
			return 0, err
		}
		k.Claims = cs
	}
	vals := map[string]float64{}
	var refErr error
	src := claimRef.ReplaceAllStringFunc(c.Bench, func(m string) string {
		id := m[1 : len(m)-1]
		i := slices.IndexFunc(k.Claims, func(o Claim) bool { return o.ID == id })
		if i < 0 {
			refErr = fmt.Errorf("no claim %q", id)
			return "0"
		}
		o := k.Claims[i]
		var v float64
		var err error
		switch o.Field {
		case "given":
			err = fmt.Errorf("claim %q is given, not computed: an expr names computed claims only", id)
		case "expr":
			v, err = k.expr(o, seen)
		case "match", "matchmedian":
			v, err = k.match(o)
		default:
			v, err = k.value(o)
		}
		if err != nil && refErr == nil {
			refErr = fmt.Errorf("%s: %v", id, err)
		}
		name := fmt.Sprintf("v%d", len(vals))
		vals[name] = v
		return name
	})
	if refErr != nil {
		return 0, refErr
	}
	e, err := parser.ParseExpr(src)
	if err != nil {
		return 0, fmt.Errorf("expression %q: %v", c.Bench, err)
	}
	return eval(e, vals)
}

// eval evaluates the arithmetic of an expr claim.
func eval(e ast.Expr, vals map[string]float64) (float64, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return 0, fmt.Errorf("%s is not a number", e.Value)
		}
		return strconv.ParseFloat(e.Value, 64)
	case *ast.Ident:
		v, ok := vals[e.Name]
		if !ok {
			return 0, fmt.Errorf("%s: name claims as {id}", e.Name)
		}
		return v, nil
	case *ast.ParenExpr:
		return eval(e.X, vals)
	case *ast.UnaryExpr:
		x, err := eval(e.X, vals)
		switch {
		case err != nil:
			return 0, err
		case e.Op == token.SUB:
			return -x, nil
		case e.Op == token.ADD:
			return x, nil
		}
		return 0, fmt.Errorf("operator %s", e.Op)
	case *ast.BinaryExpr:
		x, err := eval(e.X, vals)
		if err != nil {
			return 0, err
		}
		y, err := eval(e.Y, vals)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case token.ADD:
			return x + y, nil
		case token.SUB:
			return x - y, nil
		case token.MUL:
			return x * y, nil
		case token.QUO:
			return x / y, nil
		}
		return 0, fmt.Errorf("operator %s", e.Op)
	case *ast.CallExpr:
		fn, ok := e.Fun.(*ast.Ident)
		if !ok {
			return 0, fmt.Errorf("unknown function")
		}
		var args []float64
		for _, a := range e.Args {
			v, err := eval(a, vals)
			if err != nil {
				return 0, err
			}
			args = append(args, v)
		}
		switch {
		case fn.Name == "max" && len(args) > 0:
			return slices.Max(args), nil
		case fn.Name == "min" && len(args) > 0:
			return slices.Min(args), nil
		case fn.Name == "abs" && len(args) == 1:
			return math.Abs(args[0]), nil
		}
		return 0, fmt.Errorf("function %s with %d arguments", fn.Name, len(args))
	}
	return 0, fmt.Errorf("%T in an expression", e)
}
